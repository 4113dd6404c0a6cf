package io.dkv.client.ordered;

import org.agrona.collections.IntHashSet;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shape every tree keeps: what the tests check after each change. */
final class TreeChecks
{
    private TreeChecks()
    {
    }

    /**
     * Check the tree at {@code root} in {@code store}: every leaf at the same depth, every count the elements under its
     * child, a keyed tree's keys in order and inside its separators, no node above the node bytes that could split,
     * and the end paths, where the root names them, those a walk by first and by last children takes.
     *
     * @return the numbers of the nodes reached.
     */
    static IntHashSet check(final MapNodeStore store, final TreeRoot root, final int nodeBytes, final boolean keyed)
    {
        final IntHashSet reached = new IntHashSet();
        if (root.height == 0)
        {
            assertEquals(0, root.root, "an empty tree names no root");
            assertEquals(0, root.count);
            return reached;
        }
        final long total = check(store, root.root, root.height - 1, null, null, nodeBytes, keyed, reached, true);
        assertEquals(root.count, total, "the root's count");
        if (root.pathLevels > 0)
        {
            checkEnd(store, root, false);
            checkEnd(store, root, true);
        }
        return reached;
    }

    /** The end path the header names is the walk from the root by first children (by last children: {@code last}). */
    private static void checkEnd(final MapNodeStore store, final TreeRoot root, final boolean last)
    {
        assertEquals(root.height, root.pathLevels, "end paths name every level");
        int number = root.root;
        for (int level = 0; level < root.height; level++)
        {
            assertEquals(number, root.endPath(last)[level], (last ? "last" : "first") + " path at level " + level);
            if (level + 1 < root.height)
            {
                final TreeNode node = TreeNode.decode(store.nodes.get(number), "node " + number);
                number = node.children.getInt(last ? node.size() - 1 : 0);
            }
        }
    }

    private static long check(final MapNodeStore store, final int number, final int levelsBelow, final byte[] low,
        final byte[] high, final int nodeBytes, final boolean keyed, final IntHashSet reached, final boolean isRoot)
    {
        assertTrue(reached.add(number), "node " + number + " is reached twice");
        final byte[] encoded = store.nodes.get(number);
        assertTrue(encoded != null, "node " + number + " is named but missing");
        final TreeNode node = TreeNode.decode(encoded, "node " + number);
        assertEquals(levelsBelow == 0, node.leaf, "node " + number + " at " + levelsBelow + " levels above the leaves");
        assertTrue(node.size() > 0, "node " + number + " is empty");
        if (!isRoot || !node.leaf)
        {
            assertTrue(node.bytes() <= nodeBytes || node.size() < (node.leaf ? 2 : OrderedTree.MIN_INNER_SPLIT),
                "node " + number + " of " + node.bytes() + " bytes and " + node.size() + " entries should have split");
        }
        if (isRoot && !node.leaf)
        {
            assertTrue(node.size() >= 2, "an inner root has two children or more");
        }
        if (node.leaf)
        {
            for (int i = 0; i < node.size(); i++)
            {
                final byte[] key = node.keys.get(i);
                if (keyed)
                {
                    assertTrue(low == null || Arrays.compareUnsigned(low, key) <= 0, "key below its separator");
                    assertTrue(high == null || Arrays.compareUnsigned(key, high) < 0, "key at or above the next");
                    assertTrue(i == 0 || Arrays.compareUnsigned(node.keys.get(i - 1), key) < 0, "keys out of order");
                }
                else
                {
                    assertEquals(0, key.length, "a list's keys are empty");
                }
            }
            return node.size();
        }
        long total = 0;
        for (int i = 0; i < node.size(); i++)
        {
            final byte[] childLow = i == 0 ? low : node.keys.get(i);
            final byte[] childHigh = i + 1 < node.size() ? node.keys.get(i + 1) : high;
            if (i == 0)
            {
                assertEquals(0, node.keys.get(0).length, "an inner node's first entry has no separator");
            }
            final long under = check(store, node.children.getInt(i), levelsBelow - 1, childLow, childHigh, nodeBytes,
                keyed, reached, false);
            assertEquals(node.counts.getLong(i), under, "count of child " + i + " of node " + number);
            total += under;
        }
        return total;
    }
}

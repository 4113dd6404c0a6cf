package io.dkv.client.ordered;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A push or a pop at either end of a deep list reads its whole path in one round trip: the header names the nodes
 * from the root to the first and to the last leaf, each change keeps them so, and a change at an end reads them all
 * at once. Round trips are counted as the store's reads, each read of several nodes at once one.
 */
class EndPathsTest
{
    private static final int NODE_BYTES = 1024;
    private static final int ELEMENTS = 40_000;
    private static final int CHANGES = 2_000;

    /** Counts round trips: a read, or a read of many at once. */
    private static final class CountingStore implements NodeStore
    {
        final MapNodeStore nodes = new MapNodeStore();
        long roundTrips;

        public byte[] read(final int node)
        {
            roundTrips++;
            return nodes.read(node);
        }

        public byte[][] readAll(final int[] numbers, final int count)
        {
            roundTrips++;
            final byte[][] read = new byte[count][];
            for (int i = 0; i < count; i++)
            {
                read[i] = nodes.read(numbers[i]);
            }
            return read;
        }

        public void write(final int node, final byte[] encoded)
        {
            nodes.write(node, encoded);
        }

        public void remove(final int node)
        {
            nodes.remove(node);
        }
    }

    private final CountingStore store = new CountingStore();
    private final TreeRoot root = TreeRoot.empty();
    private int next = 1;

    @Test
    void pushesAndPopsAtEitherEndReadTheirPathInOneRoundTrip()
    {
        fill();
        assertTrue(root.height >= 3, "a list of " + ELEMENTS + " elements in nodes of " + NODE_BYTES + " bytes is " +
            root.height + " levels deep");
        final int height = root.height;

        assertRoundTrips("LPUSH", height, false, tree -> tree.insertAt(0, TreeNode.EMPTY, element(7)));
        assertRoundTrips("RPUSH", height, true, tree -> tree.insertAt(tree.size(), TreeNode.EMPTY, element(8)));
        assertRoundTrips("LPOP", height, false, tree -> tree.removeAt(0));
        assertRoundTrips("RPOP", height, true, tree -> tree.removeAt(tree.size() - 1));
        assertEquals(ELEMENTS, root.count);
    }

    @Test
    void withoutThePathsEachChangeReadsALevelARoundTrip()
    {
        fill();
        final long before = store.roundTrips;
        for (int i = 0; i < CHANGES; i++)
        {
            change(null, tree -> tree.insertAt(0, TreeNode.EMPTY, element(7)));
        }
        assertTrue(store.roundTrips - before >= (long)CHANGES * root.height, "the walk reads a node a level");
    }

    /** Push {@link #ELEMENTS} at the tail, each a change. */
    private void fill()
    {
        for (int i = 0; i < ELEMENTS; i++)
        {
            final byte[] element = element(i);
            change(Boolean.TRUE, tree -> tree.insertAt(tree.size(), TreeNode.EMPTY, element));
        }
    }

    /** Run {@code body} {@link #CHANGES} times at its {@code last} end (or first): a round trip each, merges aside. */
    private void assertRoundTrips(final String what, final int height, final boolean last, final Body body)
    {
        final long before = store.roundTrips;
        for (int i = 0; i < CHANGES; i++)
        {
            change(last, body);
        }
        final double each = (store.roundTrips - before) / (double)CHANGES;
        // a merge or an even-out with a neighbour reads it: once in many changes of one leaf
        assertTrue(each <= 1.2, what + " took " + each + " round trips a change in a tree " + height + " deep");
        assertEquals(root.height, root.pathLevels, "the header names both paths after " + what);
        TreeChecks.check(store.nodes, root, NODE_BYTES, false);
    }

    /**
     * One transaction's change: the tree opened afresh, the path to its {@code last} end (or first) read first, none
     * where null, and the ends kept.
     */
    private void change(final Boolean last, final Body body)
    {
        final NodeSpace space = new NodeSpace(store, next, NODE_BYTES, "list under test");
        final OrderedTree tree = new OrderedTree(space, root);
        if (last != null)
        {
            tree.prefetchEnd(last);
        }
        body.apply(tree);
        tree.refreshEnds();
        space.flush();
        next = space.nextNode();
    }

    private static byte[] element(final int i)
    {
        return OrderedTreeTest.bytes("element-" + i);
    }

    @FunctionalInterface
    private interface Body
    {
        void apply(OrderedTree tree);
    }
}

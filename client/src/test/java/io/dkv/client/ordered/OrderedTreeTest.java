package io.dkv.client.ordered;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tree, opened afresh from its store for each change as a transaction would, against a sorted map (keyed) or a list
 * (positional) through thousands of random changes: same elements, same ranks, the shape {@link TreeChecks} asks for
 * after every change, and no node left behind.
 */
class OrderedTreeTest
{
    private static final String OWNER = "tree under test";

    @ParameterizedTest
    @ValueSource(ints = {160, 400, 4096})
    void aKeyedTreeAnswersAsASortedMap(final int nodeBytes)
    {
        final Random random = new Random(nodeBytes);
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        final int[] next = {1};
        final TreeMap<String, String> model = new TreeMap<>();
        for (int step = 0; step < 6000; step++)
        {
            final String key = "k" + random.nextInt(step < 3000 ? 2000 : 400);
            final NodeSpace space = new NodeSpace(store, next[0], nodeBytes, OWNER);
            final OrderedTree tree = new OrderedTree(space, root);
            final int op = random.nextInt(10);
            if (op < 5 || step < 500)
            {
                final String value = "v" + step + "x".repeat(random.nextInt(20));
                assertEquals(!model.containsKey(key), tree.put(bytes(key), bytes(value)), "put " + key);
                model.put(key, value);
            }
            else if (op < 8 || step > 5000)
            {
                assertEquals(model.remove(key) != null, tree.remove(bytes(key)), "remove " + key);
            }
            else
            {
                final String got = model.get(key);
                final byte[] read = tree.get(bytes(key));
                assertEquals(got, read == null ? null : new String(read, StandardCharsets.UTF_8), "get " + key);
                assertEquals(model.headMap(key).size(), tree.rankBelow(bytes(key)), "rank of " + key);
            }
            tree.refreshEnds();
            space.flush();
            next[0] = space.nextNode();
            assertEquals(model.size(), root.count);
            assertEquals(store.nodes.keySet(), TreeChecks.check(store, root, nodeBytes, true), "nodes left behind");
            if (step % 500 == 499)
            {
                assertWholeTree(new OrderedTree(new NodeSpace(store, next[0], nodeBytes, OWNER), root), model);
            }
        }
        final OrderedTree tree = new OrderedTree(new NodeSpace(store, next[0], nodeBytes, OWNER), root);
        assertWholeTree(tree, model);
    }

    private static void assertWholeTree(final OrderedTree tree, final TreeMap<String, String> model)
    {
        final List<String> forward = new ArrayList<>();
        tree.forEach(0, Long.MAX_VALUE, false, (key, value) -> forward.add(text(key) + "=" + text(value)));
        final List<String> expected = new ArrayList<>();
        for (final Map.Entry<String, String> entry : model.entrySet())
        {
            expected.add(entry.getKey() + "=" + entry.getValue());
        }
        assertEquals(expected, forward);
        final List<String> backward = new ArrayList<>();
        tree.forEach(0, tree.size(), true, (key, value) -> backward.add(text(key) + "=" + text(value)));
        assertEquals(expected.reversed(), backward);
        long rank = 0;
        for (final String key : model.keySet())
        {
            assertArrayEquals(bytes(key), tree.at(rank)[0], "element at " + rank);
            rank++;
        }
        if (model.size() > 10)
        {
            final List<String> middle = new ArrayList<>();
            tree.forEach(3, 9, false, (key, value) -> middle.add(text(key) + "=" + text(value)) && middle.size() < 4);
            assertEquals(expected.subList(3, 7), middle, "a visitor that stops");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {160, 1024})
    void aPositionalTreeAnswersAsAList(final int nodeBytes)
    {
        final Random random = new Random(nodeBytes * 31L);
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        int next = 1;
        final List<String> model = new ArrayList<>();
        for (int step = 0; step < 6000; step++)
        {
            final NodeSpace space = new NodeSpace(store, next, nodeBytes, OWNER);
            final OrderedTree tree = new OrderedTree(space, root);
            if (step % 3 != 0)
            {
                // read ahead as a push or pop at an end does, whatever the change: a walk elsewhere reads past it
                tree.prefetchEnd(step % 3 == 2);
            }
            final int op = random.nextInt(10);
            final String value = "e" + step;
            if (op < 2 || (step < 2500 && op < 6))
            {
                final int at = random.nextInt(model.size() + 1);
                tree.insertAt(at, TreeNode.EMPTY, bytes(value));
                model.add(at, value);
            }
            else if (op < 3)
            {
                tree.insertAt(op % 2 == 0 ? 0 : model.size(), TreeNode.EMPTY, bytes(value));
                model.add(op % 2 == 0 ? 0 : model.size(), value);
            }
            else if (op < 8 && !model.isEmpty())
            {
                final int at = random.nextBoolean() ? random.nextInt(model.size()) : random.nextBoolean() ? 0 :
                    model.size() - 1;
                assertEquals(model.remove(at), text(tree.removeAt(at)[1]), "removed at " + at);
            }
            else if (!model.isEmpty())
            {
                final int at = random.nextInt(model.size());
                assertEquals(model.get(at), text(tree.at(at)[1]), "at " + at);
                tree.setAt(at, bytes(value + "-set"));
                model.set(at, value + "-set");
            }
            tree.refreshEnds();
            space.flush();
            next = space.nextNode();
            assertEquals(model.size(), root.count);
            assertEquals(store.nodes.keySet(), TreeChecks.check(store, root, nodeBytes, false), "nodes left behind");
        }
        final OrderedTree tree = new OrderedTree(new NodeSpace(store, next, nodeBytes, OWNER), root);
        final List<String> all = new ArrayList<>();
        tree.forEach(0, tree.size(), false, (key, value) -> all.add(text(value)));
        assertEquals(model, all);
        final List<String> range = new ArrayList<>();
        tree.forEach(model.size() / 3, model.size() / 2, true, (key, value) -> range.add(text(value)));
        assertEquals(model.subList(model.size() / 3, model.size() / 2).reversed(), range);
    }

    @ParameterizedTest
    @ValueSource(ints = {160, 1024})
    void removingRangesKeepsTheShape(final int nodeBytes)
    {
        final Random random = new Random(nodeBytes * 17L);
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        int next = 1;
        final List<String> model = new ArrayList<>();
        for (int step = 0; step < 1500; step++)
        {
            final NodeSpace space = new NodeSpace(store, next, nodeBytes, OWNER);
            final OrderedTree tree = new OrderedTree(space, root);
            if (model.size() < 200 || random.nextInt(3) == 0)
            {
                for (int i = random.nextInt(300); i >= 0; i--)
                {
                    final int at = random.nextInt(model.size() + 1);
                    final String value = "e" + step + "-" + i + "x".repeat(random.nextInt(nodeBytes / 8));
                    tree.insertAt(at, TreeNode.EMPTY, bytes(value));
                    model.add(at, value);
                }
            }
            else
            {
                final int size = model.size();
                final int from = switch (random.nextInt(4))
                {
                    case 0 -> 0;
                    case 1 -> size - random.nextInt(size / 4 + 1);
                    default -> random.nextInt(size);
                };
                final int to = random.nextInt(5) == 0 ? size + 3 :
                    from + random.nextInt(random.nextBoolean() ? 4 : size - from + 1);
                tree.removeRange(from, to);
                model.subList(Math.min(from, size), Math.min(to, size)).clear();
            }
            tree.refreshEnds();
            space.flush();
            next = space.nextNode();
            assertEquals(model.size(), root.count);
            assertEquals(store.nodes.keySet(), TreeChecks.check(store, root, nodeBytes, false), "nodes left behind");
            if (root.height > 1)
            {
                assertTwoChildrenOrMore(store, root.root, root.height - 1);
            }
            if (step % 50 == 0 || model.isEmpty())
            {
                final List<String> all = new ArrayList<>();
                new OrderedTree(new NodeSpace(store, next, nodeBytes, OWNER), root)
                    .forEach(0, Long.MAX_VALUE, false, (key, value) -> all.add(text(value)));
                assertEquals(model, all, "after step " + step);
            }
        }
    }

    /** A range's removal leaves no inner node with one child, which merges would not fix. */
    private static void assertTwoChildrenOrMore(final MapNodeStore store, final int number, final int levelsBelow)
    {
        if (levelsBelow == 0)
        {
            return;
        }
        final TreeNode node = TreeNode.decode(store.nodes.get(number), "node " + number);
        assertTrue(node.size() >= 2, "inner node " + number + " has " + node.size() + " child");
        for (int i = 0; i < node.size(); i++)
        {
            assertTwoChildrenOrMore(store, node.children.getInt(i), levelsBelow - 1);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {160, 4096})
    void droppingTheTreeRemovesEveryNode(final int nodeBytes)
    {
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        final NodeSpace space = new NodeSpace(store, 1, nodeBytes, OWNER);
        final OrderedTree tree = new OrderedTree(space, root);
        for (int i = 0; i < 3000; i++)
        {
            tree.put(bytes(String.format("key-%05d", i)), bytes("value " + i));
        }
        space.flush();
        assertEquals(3000, root.count);
        final NodeSpace again = new NodeSpace(store, space.nextNode(), nodeBytes, OWNER);
        new OrderedTree(again, root).drop();
        again.flush();
        assertEquals(0, store.nodes.size());
        assertEquals(0, root.height);
    }

    @ParameterizedTest
    @ValueSource(ints = {256})
    void longKeysSharingLongPrefixesKeepTheTreeShallow(final int nodeBytes)
    {
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        final NodeSpace space = new NodeSpace(store, 1, nodeBytes, OWNER);
        final OrderedTree tree = new OrderedTree(space, root);
        final String prefix = "p".repeat(2000);
        for (int i = 0; i < 200; i++)
        {
            tree.put(bytes(prefix + String.format("%04d", i)), TreeNode.EMPTY);
        }
        space.flush();
        TreeChecks.check(store, root, nodeBytes, true);
        // two children at least under every inner node: at most log2(200) + 1 levels
        assertEquals(true, root.height <= 9, "height " + root.height);
        assertNull(new OrderedTree(new NodeSpace(store, space.nextNode(), nodeBytes, OWNER), root).get(bytes("q")));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void sampledSizesComeNearTheExactOnes(final boolean keyed)
    {
        final int nodeBytes = 4096;
        final Random random = new Random(keyed ? 5 : 6);
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        final NodeSpace space = new NodeSpace(store, 1, nodeBytes, OWNER);
        final OrderedTree tree = new OrderedTree(space, root);
        for (int i = 0; i < 30_000; i++)
        {
            final byte[] value = bytes("v".repeat(random.nextInt(40)));
            if (keyed)
            {
                tree.put(bytes("key-" + random.nextLong()), value);
            }
            else
            {
                tree.insertAt(random.nextInt((int)tree.size() + 1), TreeNode.EMPTY, value);
            }
        }
        space.flush();
        final long[] exact = new OrderedTree(new NodeSpace(store, space.nextNode(), nodeBytes, OWNER), root)
            .estimateNodes(0);
        assertEquals(store.nodes.size(), exact[0], "every node counted");
        assertEquals(store.nodes.values().stream().mapToLong(encoded -> encoded.length).sum(), exact[1],
            "every node's bytes");
        for (final int samples : new int[] {5, 50})
        {
            final long[] sampled = new OrderedTree(new NodeSpace(store, space.nextNode(), nodeBytes, OWNER), root)
                .estimateNodes(samples);
            assertTrue(Math.abs(sampled[0] - exact[0]) <= exact[0] / 4, samples + " samples: " + sampled[0] +
                " nodes, not " + exact[0]);
            assertTrue(Math.abs(sampled[1] - exact[1]) <= exact[1] / 4, samples + " samples: " + sampled[1] +
                " bytes, not " + exact[1]);
        }
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static boolean same(final byte[] a, final byte[] b)
    {
        return Arrays.equals(a, b);
    }
}

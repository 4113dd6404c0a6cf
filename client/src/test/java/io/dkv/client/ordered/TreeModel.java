package io.dkv.client.ordered;

import io.dkv.client.txn.TransactionConflictException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The explorer of {@link OrderedTreeModelTest}: clients running real {@link OrderedTree} changes over a shared header
 * and nodes, one read or commit a step, every interleaving visited once.
 */
final class TreeModel
{
    private static final int NODE_BYTES = 64;

    enum Variant
    {
        CORRECT, HEADER_NOT_CHECKED, HEADER_ONLY_WHEN_SHAPE_CHANGES, ENDS_NOT_KEPT
    }

    /** A client's change: what it does to the tree, given the tree; answers what it read (readers) or null. */
    record Change(String name, Function<OrderedTree, String> body)
    {
    }

    /**
     * The store: the header (a version, the tree's root, its end paths and next node) and the nodes, by number.
     *
     * @param ends the end paths as {@link #ends} writes them.
     */
    private record Shared(int version, int root, int height, long count, int nextNode, String ends,
        Map<Integer, String> nodes)
    {
        String key()
        {
            return version + "|" + root + "|" + height + "|" + count + "|" + nextNode + "|" + ends + "|" + nodes;
        }

        TreeRoot treeRoot()
        {
            return TreeModel.treeRoot(root, height, count, ends);
        }
    }

    /** A client: its change, what it read so far (the header version first), and whether it is done. */
    private record Client(int change, List<String> reads, boolean done, String answer)
    {
    }

    private record State(Shared shared, List<Client> clients, List<String> commits)
    {
        String key()
        {
            final StringBuilder key = new StringBuilder(shared.key());
            for (final Client client : clients)
            {
                key.append('#').append(client.done).append(client.reads).append(client.answer);
            }
            return key.append(commits).toString();
        }
    }

    /** Thrown by a replayed change at its first read not yet taken: the step it takes next. */
    private static final class Pause extends RuntimeException
    {
        final int node;

        Pause(final int node)
        {
            super(null, null, false, false);
            this.node = node;
        }
    }

    /** A node store that answers the reads a client has taken, and pauses at the next; keeps what it writes. */
    private static final class Replay implements NodeStore
    {
        private final List<String> reads;
        private int next = 1;
        final TreeMap<Integer, byte[]> writes = new TreeMap<>();
        final Set<Integer> removes = new HashSet<>();

        Replay(final List<String> reads)
        {
            this.reads = reads;
        }

        public byte[] read(final int node)
        {
            if (next >= reads.size())
            {
                throw new Pause(node);
            }
            final String read = reads.get(next++);
            return read.equals("-") ? null : hex(read);
        }

        public void write(final int node, final byte[] encoded)
        {
            writes.put(node, encoded);
            removes.remove(node);
        }

        public void remove(final int node)
        {
            removes.add(node);
            writes.remove(node);
        }
    }

    private final Variant variant;
    private final List<Change> changes;
    private long states;

    private TreeModel(final Variant variant, final List<Change> changes)
    {
        this.variant = variant;
        this.changes = changes;
    }

    static Change insert(final String key)
    {
        return new Change("insert " + key, tree ->
        {
            tree.put(bytes(key), bytes("10"));
            return null;
        });
    }

    static Change remove(final String key)
    {
        return new Change("remove " + key, tree ->
        {
            tree.remove(bytes(key));
            return null;
        });
    }

    static Change transfer(final String from, final String to)
    {
        return new Change("transfer " + from + " to " + to, tree ->
        {
            final int a = Integer.parseInt(text(tree.get(bytes(from))));
            final int b = Integer.parseInt(text(tree.get(bytes(to))));
            tree.put(bytes(from), bytes(Integer.toString(a - 3)));
            tree.put(bytes(to), bytes(Integer.toString(b + 3)));
            return null;
        });
    }

    static Change read()
    {
        return new Change("read", tree ->
        {
            final StringBuilder all = new StringBuilder();
            tree.forEach(0, tree.size(), false, (key, value) -> all.append(text(key)).append('=')
                .append(text(value)).append(' ') != null);
            return all.toString().trim();
        });
    }

    /** @return the states explored; throws AssertionError on a violation. */
    static long check(final Variant variant, final List<String> initial, final List<Change> changes)
    {
        final TreeModel model = new TreeModel(variant, changes);
        final MapNodeStore store = new MapNodeStore();
        final TreeRoot root = TreeRoot.empty();
        final NodeSpace space = new NodeSpace(store, 1, NODE_BYTES, "model");
        final OrderedTree tree = new OrderedTree(space, root);
        for (final String key : initial)
        {
            tree.put(bytes(key), bytes("10"));
        }
        tree.refreshEnds();
        space.flush();
        final TreeMap<Integer, String> nodes = new TreeMap<>();
        store.nodes.forEach((number, encoded) -> nodes.put(number, hex(encoded)));
        final Shared shared = new Shared(0, root.root, root.height, root.count, space.nextNode(), ends(root), nodes);
        final List<Client> clients = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++)
        {
            clients.add(new Client(i, List.of(), false, null));
        }
        model.explore(new State(shared, clients, List.of()), contents(shared));
        return model.states;
    }

    private void explore(final State start, final String initialContents)
    {
        final Set<String> seen = new HashSet<>();
        final Deque<State> work = new ArrayDeque<>();
        work.push(start);
        seen.add(start.key());
        while (!work.isEmpty())
        {
            final State state = work.pop();
            states++;
            boolean any = false;
            for (int i = 0; i < state.clients.size(); i++)
            {
                if (state.clients.get(i).done)
                {
                    continue;
                }
                any = true;
                final State next = step(state, i);
                if (seen.add(next.key()))
                {
                    work.push(next);
                }
            }
            if (!any)
            {
                atTheEnd(state, initialContents);
            }
        }
    }

    /** Client {@code i} takes its next step: a read of the header or a node, or its commit. */
    private State step(final State state, final int i)
    {
        final Client client = state.clients.get(i);
        final Shared shared = state.shared;
        if (client.reads.isEmpty())
        {
            final String header = shared.version + " " + shared.root + " " + shared.height + " " + shared.count +
                " " + shared.nextNode + " " + shared.ends;
            return with(state, i, new Client(client.change, List.of(header), false, null), shared, state.commits);
        }
        final String[] header = client.reads.getFirst().split(" ");
        final Replay replay = new Replay(client.reads);
        final TreeRoot root = treeRoot(Integer.parseInt(header[1]), Integer.parseInt(header[2]),
            Long.parseLong(header[3]), header[5]);
        // the header's version counts its changes: nodes read stamped later tear the view, and the change runs again
        final NodeSpace space = variant == Variant.HEADER_ONLY_WHEN_SHAPE_CHANGES ?
            new NodeSpace(replay, Integer.parseInt(header[4]), NODE_BYTES, "model") :
            new NodeSpace(replay, Integer.parseInt(header[4]), NODE_BYTES, "model", Integer.parseInt(header[0]));
        final String answer;
        try
        {
            final OrderedTree tree = new OrderedTree(space, root);
            answer = changes.get(client.change).body.apply(tree);
            if (variant != Variant.ENDS_NOT_KEPT)
            {
                // the header's end paths brought up to the change, as a collection's write does
                tree.refreshEnds();
            }
            space.flush();
        }
        catch (final Pause pause)
        {
            final String node = shared.nodes.get(pause.node);
            final List<String> reads = new ArrayList<>(client.reads);
            reads.add(node == null ? "-" : node);
            return with(state, i, new Client(client.change, reads, false, null), shared, state.commits);
        }
        catch (final TransactionConflictException stale)
        {
            // reads of two instants: the node space saw a node written after the header read, or one gone
            return with(state, i, new Client(client.change, List.of(), false, null), shared, state.commits);
        }
        catch (final RuntimeException failure)
        {
            // what a user would see: an error out of a change, where it should have run again or committed
            throw new AssertionError(changes.get(client.change).name + " failed with " + failure + " after " +
                state.commits + " (reads " + client.reads + ")", failure);
        }
        final boolean shapeChanged = root.root != Integer.parseInt(header[1]) ||
            root.height != Integer.parseInt(header[2]) || root.count != Long.parseLong(header[3]) ||
            space.nextNode() != Integer.parseInt(header[4]);
        final boolean headerWritten = !replay.writes.isEmpty() || !replay.removes.isEmpty() ?
            variant != Variant.HEADER_ONLY_WHEN_SHAPE_CHANGES || shapeChanged : false;
        final boolean checked = variant != Variant.HEADER_NOT_CHECKED || !headerWritten;
        if (checked && Integer.parseInt(header[0]) != shared.version)
        {
            return with(state, i, new Client(client.change, List.of(), false, null), shared, state.commits);
        }
        final TreeMap<Integer, String> nodes = new TreeMap<>(shared.nodes);
        replay.removes.forEach(nodes::remove);
        replay.writes.forEach((number, encoded) -> nodes.put(number, hex(encoded)));
        final Shared after = headerWritten ? new Shared(shared.version + 1, root.root, root.height, root.count,
            space.nextNode(), ends(root), nodes) : new Shared(shared.version, shared.root, shared.height, shared.count,
            shared.nextNode, shared.ends, nodes);
        checkShape(after);
        final List<String> commits = new ArrayList<>(state.commits);
        commits.add(changes.get(client.change).name + (answer == null ? "" : " saw [" + answer + "] of [" +
            contents(after) + "]"));
        return with(state, i, new Client(client.change, client.reads, true, answer), after, commits);
    }

    private static State with(final State state, final int i, final Client client, final Shared shared,
        final List<String> commits)
    {
        final List<Client> clients = new ArrayList<>(state.clients);
        clients.set(i, client);
        return new State(shared, clients, commits);
    }

    private static void checkShape(final Shared shared)
    {
        final MapNodeStore store = new MapNodeStore();
        shared.nodes.forEach((number, encoded) -> store.nodes.put(number, hex(encoded)));
        assertEquals(store.nodes.keySet(), TreeChecks.check(store, shared.treeRoot(), NODE_BYTES, true),
            "nodes left behind");
    }

    /** @return the root's end paths as a header string holds them: "first/last", node numbers by commas. */
    private static String ends(final TreeRoot root)
    {
        final StringBuilder ends = new StringBuilder();
        for (int level = 0; level < root.pathLevels; level++)
        {
            ends.append(level == 0 ? "" : ",").append(root.first[level]);
        }
        ends.append('/');
        for (int level = 0; level < root.pathLevels; level++)
        {
            ends.append(level == 0 ? "" : ",").append(root.last[level]);
        }
        return ends.toString();
    }

    private static TreeRoot treeRoot(final int number, final int height, final long count, final String ends)
    {
        final TreeRoot root = new TreeRoot(number, height, count);
        final String[] paths = ends.split("/", -1);
        if (!paths[0].isEmpty())
        {
            final String[] first = paths[0].split(",");
            final String[] last = paths[1].split(",");
            for (int level = 0; level < first.length; level++)
            {
                root.first[level] = Integer.parseInt(first[level]);
                root.last[level] = Integer.parseInt(last[level]);
            }
            root.pathLevels = first.length;
        }
        return root;
    }

    /** At the end: the elements are what the committed changes make in the order they committed. */
    private void atTheEnd(final State state, final String initialContents)
    {
        final TreeMap<String, Integer> serial = new TreeMap<>();
        for (final String element : initialContents.split(" "))
        {
            if (!element.isEmpty())
            {
                serial.put(element.split("=")[0], Integer.parseInt(element.split("=")[1]));
            }
        }
        for (final String commit : state.commits)
        {
            final String[] words = commit.split(" ");
            switch (words[0])
            {
                case "insert" -> serial.put(words[1], 10);
                case "remove" -> serial.remove(words[1]);
                case "transfer" ->
                {
                    serial.put(words[1], serial.get(words[1]) - 3);
                    serial.put(words[3], serial.get(words[3]) + 3);
                }
                default ->
                {
                    final String saw = commit.substring(commit.indexOf('[') + 1, commit.indexOf(']'));
                    final String of = commit.substring(commit.lastIndexOf('[') + 1, commit.lastIndexOf(']'));
                    assertEquals(of, saw, "a reader saw another state than the one it committed in: " +
                        state.commits);
                    assertEquals(render(serial), saw, "a reader saw another state than the serial one at its " +
                        "commit: " + state.commits);
                }
            }
        }
        assertEquals(render(serial), contents(state.shared), "after " + state.commits);
    }

    private static String render(final TreeMap<String, Integer> elements)
    {
        final StringBuilder rendered = new StringBuilder();
        elements.forEach((key, value) -> rendered.append(key).append('=').append(value).append(' '));
        return rendered.toString().trim();
    }

    private static String contents(final Shared shared)
    {
        final MapNodeStore store = new MapNodeStore();
        shared.nodes.forEach((number, encoded) -> store.nodes.put(number, hex(encoded)));
        final OrderedTree tree = new OrderedTree(new NodeSpace(store, shared.nextNode, NODE_BYTES, "model"),
            new TreeRoot(shared.root, shared.height, shared.count));
        final StringBuilder all = new StringBuilder();
        tree.forEach(0, tree.size(), false, (key, value) -> all.append(text(key)).append('=').append(text(value))
            .append(' ') != null);
        return all.toString().trim();
    }

    private static String hex(final byte[] bytes)
    {
        final StringBuilder hex = new StringBuilder();
        for (final byte b : bytes)
        {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    private static byte[] hex(final String hex)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(hex.length() / 2);
        for (int i = 0; i < hex.length(); i += 2)
        {
            bytes.put((byte)Integer.parseInt(hex.substring(i, i + 2), 16));
        }
        return bytes.array();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }

}

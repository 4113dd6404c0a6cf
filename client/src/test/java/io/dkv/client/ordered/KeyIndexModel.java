package io.dkv.client.ordered;

import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.format.ValueKind;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The explorer of {@link KeyIndexModelTest}: clients running the real {@link KeyIndex} over a model of the store's
 * transactions (a read is checked at commit, a peek is not, a written key is swapped from the version its
 * transaction saw), one read or commit a step, every interleaving visited once. A client's state is what it has
 * read; its change is run again over those reads (a fresh {@code KeyIndex} with the hints it began with) to take its
 * next step.
 */
final class KeyIndexModel
{
    static final int NODE_BYTES = 32;
    private static final HexFormat HEX = HexFormat.of();

    enum Variant
    {
        CORRECT,
        /** Reads are not checked at commit (written keys are still swapped from the version seen). */
        READS_NOT_CHECKED
    }

    /** A change: insert or remove a key, or scan {@code count} keys from {@code key}. */
    record Change(String kind, String key, int count)
    {
        String name()
        {
            return kind + " " + key + (kind.equals("scan") ? " " + count : "");
        }
    }

    /** A key's cell: a version (0 while absent) and its value in hex, or null. */
    private record Cell(int version, String value)
    {
    }

    /** One read a client took: the key, whether its commit checks it, what it found. */
    private record Read(String key, boolean checked, int version, String value)
    {
    }

    private record Client(int change, List<Read> reads, boolean hinted, int attempt, boolean done, String answer)
    {
    }

    private record State(TreeMap<String, Cell> store, List<Client> clients, List<String> commits)
    {
        String key()
        {
            return store + "#" + clients + "#" + commits;
        }
    }

    private static final class Pause extends RuntimeException
    {
        final String key;
        final boolean checked;

        Pause(final String key, final boolean checked)
        {
            super(null, null, false, false);
            this.key = key;
            this.checked = checked;
        }
    }

    /** A transaction's reads served from what the client took, its writes kept; the next new read pauses it. */
    private static final class Replay implements IndexAccess
    {
        private final List<Read> reads;
        private int next;
        final Map<String, Read> seen = new HashMap<>();
        final Map<String, String> writes = new LinkedHashMap<>();
        final Set<String> checked = new HashSet<>();

        Replay(final List<Read> reads)
        {
            this.reads = reads;
        }

        public LogicalValue read(final byte[] key)
        {
            return get(HEX.formatHex(key), true);
        }

        public LogicalValue peek(final byte[] key)
        {
            return get(HEX.formatHex(key), false);
        }

        private LogicalValue get(final String key, final boolean check)
        {
            if (writes.containsKey(key))
            {
                return value(writes.get(key));
            }
            final Read known = seen.get(key);
            // as a transaction: a key read (checked) answers as read; a peeked one answers a peek as peeked
            if (known != null && (known.checked || !check))
            {
                return value(known.value);
            }
            if (next >= reads.size())
            {
                throw new Pause(key, check);
            }
            final Read read = reads.get(next++);
            assertEquals(key + " " + check, read.key + " " + read.checked, "the change asked another read on replay");
            if (known == null || read.checked)
            {
                seen.put(key, read);
            }
            if (read.checked)
            {
                checked.add(key);
            }
            return value(read.value);
        }

        private static LogicalValue value(final String hex)
        {
            return hex == null ? null : new LogicalValue(HEX.parseHex(hex), ValueKind.word(ValueKind.SEGMENT, 0));
        }

        public void write(final byte[] key, final byte[] value, final long word)
        {
            writes.put(HEX.formatHex(key), HEX.formatHex(value));
        }

        public void remove(final byte[] key)
        {
            writes.put(HEX.formatHex(key), null);
        }
    }

    private final Variant variant;
    private final List<Change> changes;
    private final Map<Long, IndexNode> startHints = new HashMap<>();
    private long[] startHeader;
    private long states;

    private KeyIndexModel(final Variant variant, final List<Change> changes)
    {
        this.variant = variant;
        this.changes = changes;
    }

    static Change insert(final String key)
    {
        return new Change("insert", key, 0);
    }

    static Change remove(final String key)
    {
        return new Change("remove", key, 0);
    }

    static Change scan(final String from, final int count)
    {
        return new Change("scan", from, count);
    }

    /** @return the states explored; throws AssertionError on a violation. */
    static long check(final Variant variant, final List<String> initial, final List<Change> changes)
    {
        final KeyIndexModel model = new KeyIndexModel(variant, changes);
        final TreeMap<String, Cell> store = new TreeMap<>();
        final java.util.function.LongSupplier buildIds = counted(99, 0);
        for (final String key : initial)
        {
            final Replay replay = new Replay(List.of());
            while (true)
            {
                try
                {
                    // built by one client alone: every read it asks is taken at once
                    final KeyIndex index = new KeyIndex("model", NODE_BYTES, buildIds);
                    index.insert(replayOver(store, replay), bytes(key));
                    break;
                }
                catch (final Pause pause)
                {
                    throw new IllegalStateException(pause);
                }
            }
            apply(store, replay.writes);
        }
        model.startHints(store);
        final List<Client> clients = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++)
        {
            clients.add(new Client(i, List.of(), true, 0, false, null));
        }
        model.explore(new State(store, clients, List.of()), new TreeSet<>(initial));
        return model.states;
    }

    /** A replay that reads the store directly: for the initial build. */
    private static IndexAccess replayOver(final TreeMap<String, Cell> store, final Replay replay)
    {
        return new IndexAccess()
        {
            public LogicalValue read(final byte[] key)
            {
                return peek(key);
            }

            public LogicalValue peek(final byte[] key)
            {
                final String hex = HEX.formatHex(key);
                if (replay.writes.containsKey(hex))
                {
                    return Replay.value(replay.writes.get(hex));
                }
                final Cell cell = store.get(hex);
                return Replay.value(cell == null ? null : cell.value);
            }

            public void write(final byte[] key, final byte[] value, final long word)
            {
                replay.write(key, value, word);
            }

            public void remove(final byte[] key)
            {
                replay.remove(key);
            }
        };
    }

    private void startHints(final TreeMap<String, Cell> store)
    {
        final KeyIndex probe = new KeyIndex("model", NODE_BYTES);
        final Cell header = store.get(HEX.formatHex(probe.headerKey));
        final ByteBuffer buffer = ByteBuffer.wrap(HEX.parseHex(header.value));
        startHeader = new long[]{buffer.getLong(0), buffer.getInt(Long.BYTES)};
        for (final Map.Entry<String, Cell> entry : store.entrySet())
        {
            if (!entry.getKey().equals(HEX.formatHex(probe.headerKey)) && entry.getValue().value != null)
            {
                final IndexNode node = IndexNode.decode(HEX.parseHex(entry.getValue().value), entry.getKey());
                final long id = ByteBuffer.wrap(HEX.parseHex(entry.getKey())).getLong(5);
                startHints.put(id, node);
            }
        }
    }

    private static java.util.function.LongSupplier counted(final int client, final int attempt)
    {
        final long[] next = {(client + 1L) * 1_000_000 + attempt * 1_000L};
        return () -> ++next[0];
    }

    private void explore(final State start, final TreeSet<String> initial)
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
                if (!state.clients.get(i).done)
                {
                    any = true;
                    final State next = step(state, i);
                    if (seen.add(next.key()))
                    {
                        work.push(next);
                    }
                }
            }
            if (!any)
            {
                atTheEnd(state, initial);
            }
        }
    }

    private State step(final State state, final int i)
    {
        final Client client = state.clients.get(i);
        final Change change = changes.get(client.change);
        final Replay replay = new Replay(client.reads);
        final KeyIndex index = new KeyIndex("model", NODE_BYTES, counted(i, client.attempt));
        if (client.hinted)
        {
            startHints.forEach((id, node) -> index.remember(id, IndexNode.decode(node.encode(), "hint"),
                startHeader[0], (int)startHeader[1]));
        }
        final String answer;
        try
        {
            answer = run(index, replay, change);
        }
        catch (final Pause pause)
        {
            final Cell cell = state.store.get(pause.key);
            final List<Read> reads = new ArrayList<>(client.reads);
            reads.add(new Read(pause.key, pause.checked, cell == null ? 0 : cell.version,
                cell == null ? null : cell.value));
            return with(state, i, new Client(client.change, reads, client.hinted, client.attempt, false, null),
                state.store, state.commits);
        }
        catch (final TransactionConflictException stale)
        {
            return restart(state, i, client);
        }
        for (final Map.Entry<String, Read> read : replay.seen.entrySet())
        {
            final Cell now = state.store.get(read.getKey());
            final int version = now == null ? 0 : now.version;
            final boolean mustHold = replay.writes.containsKey(read.getKey()) ||
                (replay.checked.contains(read.getKey()) && variant != Variant.READS_NOT_CHECKED);
            if (mustHold && version != read.getValue().version)
            {
                return restart(state, i, client);
            }
        }
        final TreeMap<String, Cell> after = new TreeMap<>(state.store);
        apply(after, replay.writes);
        checkShape(after);
        final List<String> commits = new ArrayList<>(state.commits);
        commits.add(change.name() + (answer == null ? "" : " = " + answer));
        return with(state, i, new Client(client.change, client.reads, client.hinted, client.attempt, true, answer),
            after, commits);
    }

    private static State restart(final State state, final int i, final Client client)
    {
        return with(state, i, new Client(client.change, List.of(), false, client.attempt + 1, false, null),
            state.store, state.commits);
    }

    private static String run(final KeyIndex index, final Replay replay, final Change change)
    {
        switch (change.kind)
        {
            case "insert" ->
            {
                index.insert(replay, bytes(change.key));
                return null;
            }
            case "remove" ->
            {
                index.remove(replay, bytes(change.key));
                return null;
            }
            default ->
            {
                final List<byte[]> keys = new ArrayList<>();
                index.scan(replay, bytes(change.key), null, change.count, keys);
                final List<String> read = new ArrayList<>();
                keys.forEach(key -> read.add(new String(key, StandardCharsets.UTF_8)));
                return String.join(",", read);
            }
        }
    }

    private static void apply(final TreeMap<String, Cell> store, final Map<String, String> writes)
    {
        writes.forEach((key, value) ->
        {
            final Cell cell = store.get(key);
            final int version = (cell == null ? 0 : cell.version) + 1;
            // an absent key reads as version 0, as the store reads "none", whatever came before
            if (value == null)
            {
                store.remove(key);
            }
            else
            {
                store.put(key, new Cell(version, value));
            }
        });
    }

    private static State with(final State state, final int i, final Client client, final TreeMap<String, Cell> store,
        final List<String> commits)
    {
        final List<Client> clients = new ArrayList<>(state.clients);
        clients.set(i, client);
        return new State(store, clients, commits);
    }

    /** Every level's nodes in order, the parents' separators and the high keys agreeing, no node left behind. */
    private static void checkShape(final TreeMap<String, Cell> store)
    {
        final String headerKey = HEX.formatHex(new KeyIndex("model", NODE_BYTES).headerKey);
        final Set<String> reached = new HashSet<>();
        reached.add(headerKey);
        final ByteBuffer header = ByteBuffer.wrap(HEX.parseHex(store.get(headerKey).value));
        List<Long> level = List.of(header.getLong(0));
        for (int height = header.getInt(Long.BYTES); height > 0; height--)
        {
            final List<Long> below = new ArrayList<>();
            byte[] low = null;
            for (int n = 0; n < level.size(); n++)
            {
                final long id = level.get(n);
                final String key = HEX.formatHex(KeyIndex.nodeKey(id));
                assertTrue(store.containsKey(key), "node " + id + " is named but missing: " + store);
                reached.add(key);
                final IndexNode node = IndexNode.decode(HEX.parseHex(store.get(key).value), key);
                assertEquals(height == 1, node.leaf, "node " + id + " at height " + height);
                assertEquals(n + 1 < level.size() ? level.get(n + 1) : 0L, node.right, "node " + id + "'s right");
                assertEquals(n + 1 == level.size(), node.high == null, "node " + id + "'s high key");
                for (int k = node.leaf ? 0 : 1; k < node.keys.size(); k++)
                {
                    final byte[] entry = node.keys.get(k);
                    assertTrue(low == null || java.util.Arrays.compareUnsigned(low, entry) <= 0, "order at " + id);
                    assertTrue(node.high == null || java.util.Arrays.compareUnsigned(entry, node.high) < 0,
                        "a key of node " + id + " at or past its high key");
                    low = entry;
                }
                if (!node.leaf)
                {
                    for (int c = 0; c < node.keys.size(); c++)
                    {
                        below.add(node.children.getLong(c));
                    }
                }
                low = node.high;
            }
            level = below;
        }
        assertEquals(store.keySet(), reached, "nodes left behind");
    }

    /** At the end: the keys are the serial outcome of the committed changes, each scan saw the serial state then. */
    private void atTheEnd(final State state, final TreeSet<String> initial)
    {
        final TreeSet<String> serial = new TreeSet<>(initial);
        for (final String commit : state.commits)
        {
            final String[] words = commit.split(" ");
            switch (words[0])
            {
                case "insert" -> serial.add(words[1]);
                case "remove" -> serial.remove(words[1]);
                default ->
                {
                    final List<String> expected = new ArrayList<>();
                    for (final String key : serial.tailSet(words[1], true))
                    {
                        if (expected.size() < Integer.parseInt(words[2]))
                        {
                            expected.add(key);
                        }
                    }
                    assertEquals(String.join(",", expected), commit.substring(commit.indexOf(" = ") + 3),
                        "a scan saw another state than the serial one at its commit: " + state.commits);
                }
            }
        }
        final List<String> keys = new ArrayList<>();
        final KeyIndex index = new KeyIndex("model", NODE_BYTES);
        final Replay all = new Replay(List.of());
        final List<byte[]> found = new ArrayList<>();
        index.scan(replayOver(state.store, all), new byte[0], null, 1_000, found);
        found.forEach(key -> keys.add(new String(key, StandardCharsets.UTF_8)));
        assertEquals(new ArrayList<>(serial), keys, "after " + state.commits);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

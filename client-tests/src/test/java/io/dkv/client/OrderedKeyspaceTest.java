package io.dkv.client;

import io.dkv.client.ordered.OrderedKeyspace;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ordered keyspaces (client/README.md, "Ordered keyspaces"): keys kept in order in a B-link tree of blocks, range scans
 * in order with their values, at r = 1 and 2; scans beside writers that split and merge the index see every writer's
 * keys as one instant holds them.
 */
@Timeout(300)
class OrderedKeyspaceTest
{
    private static final long[] NODES = {1, 2};

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void scansAnswerAsASortedMapThroughSplitsAndMerges(final int replicas)
    {
        final KvClient client = store(replicas);
        final OrderedKeyspace keyspace = client.orderedKeyspace("users");
        final TreeMap<String, String> model = new TreeMap<>();
        final Random random = new Random(5);
        for (int step = 0; step < 1_500; step++)
        {
            final String key = String.format("user%05d", random.nextInt(600));
            if (step < 900 || random.nextInt(3) > 0)
            {
                keyspace.put(bytes(key), bytes("v" + step));
                model.put(key, "v" + step);
            }
            else
            {
                assertEquals(model.remove(key) != null, keyspace.delete(bytes(key)), "delete " + key);
            }
            if (step % 50 == 0)
            {
                final String from = String.format("user%05d", random.nextInt(620));
                final int count = 1 + random.nextInt(60);
                assertEquals(expected(model.tailMap(from, true), count), entries(keyspace.scan(bytes(from), count)),
                    "scan from " + from);
                final String to = String.format("user%05d", random.nextInt(620));
                assertEquals(expected(from.compareTo(to) <= 0 ? model.subMap(from, true, to, false) :
                    new TreeMap<>(), 1_000),
                    entries(keyspace.scan(bytes(from), bytes(to), 1_000)), "scan from " + from + " to " + to);
            }
        }
        assertEquals(expected(model, 100_000), entries(keyspace.scan(new byte[0], 100_000)));
        assertEquals(model.firstEntry().getValue(), string(keyspace.get(bytes(model.firstKey()))));
        for (final String key : new ArrayList<>(model.keySet()))
        {
            assertTrue(keyspace.delete(bytes(key)));
        }
        assertEquals(List.of(), entries(keyspace.scan(new byte[0], 10)));
        assertNull(keyspace.get(bytes("user00001")));
        assertThrows(IllegalArgumentException.class, () -> keyspace.scan(new byte[0], -1));
        assertThrows(IllegalArgumentException.class, () -> keyspace.put(new byte[]{0, 'd', 'k', 'v', 0}, bytes("x")));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aScanBesideWritersSeesOneInstant(final int replicas) throws Exception
    {
        final KvClient client = store(replicas);
        final OrderedKeyspace keyspace = client.orderedKeyspace("tokens");
        final int writers = 3;
        final int moves = 150;
        final AtomicBoolean writing = new AtomicBoolean(true);
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        // filler keys, so that the tokens' moves land in many leaves and split and merge them
        for (int i = 0; i < 200; i++)
        {
            keyspace.put(bytes(String.format("k%03d", i)), bytes("filler"));
        }
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++)
        {
            final int writer = w;
            keyspace.put(bytes(String.format("k%03d-token%d", 0, writer)), bytes("token" + writer));
            threads.add(Thread.ofPlatform().start(() ->
            {
                final Random random = new Random(writer);
                int at = 0;
                for (int n = 0; n < moves; n++)
                {
                    // each writer's token moves from key to key, one transaction a move: one token at every instant
                    final int from = at;
                    final int to = random.nextInt(200);
                    client.transact(tx ->
                    {
                        keyspace.delete(tx, bytes(String.format("k%03d-token%d", from, writer)));
                        keyspace.put(tx, bytes(String.format("k%03d-token%d", to, writer)), bytes("token" + writer));
                        return null;
                    });
                    at = to;
                }
            }));
        }
        final Thread scanner = Thread.ofPlatform().start(() ->
        {
            int scans = 0;
            while (writing.get() || scans < 20)
            {
                final List<Map.Entry<byte[], byte[]>> all = keyspace.scan(new byte[0], 100_000);
                final int[] tokens = new int[writers];
                for (final Map.Entry<byte[], byte[]> entry : all)
                {
                    final String value = string(entry.getValue());
                    if (value.startsWith("token"))
                    {
                        tokens[Integer.parseInt(value.substring(5))]++;
                    }
                }
                for (int w = 0; w < writers; w++)
                {
                    if (tokens[w] != 1)
                    {
                        failures.add("scan " + scans + " saw " + tokens[w] + " tokens of writer " + w);
                    }
                }
                scans++;
            }
        });
        for (final Thread thread : threads)
        {
            thread.join();
        }
        writing.set(false);
        scanner.join();
        assertEquals(List.of(), new ArrayList<>(failures));
        final List<Map.Entry<byte[], byte[]>> all = keyspace.scan(new byte[0], 100_000);
        assertEquals(200 + writers, all.size());
        for (int i = 1; i < all.size(); i++)
        {
            assertTrue(string(all.get(i - 1).getKey()).compareTo(string(all.get(i).getKey())) < 0, "in order");
        }
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1})
    void writersInsertingAtOnceKeepEveryKey(final int replicas) throws Exception
    {
        final KvClient client = store(replicas);
        final OrderedKeyspace keyspace = client.orderedKeyspace("many");
        final int writers = 4;
        final int each = 400;
        final List<Thread> threads = new ArrayList<>();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int w = 0; w < writers; w++)
        {
            final int writer = w;
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    final Random random = new Random(writer);
                    for (int n = 0; n < each; n++)
                    {
                        keyspace.put(bytes(String.format("%08d-%d", random.nextInt(100_000_000), writer * each + n)),
                            bytes("v"));
                    }
                }
                catch (final Throwable failure)
                {
                    failures.add(failure);
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(List.of(), new ArrayList<>(failures));
        assertEquals(writers * each, keyspace.scan(new byte[0], 100_000).size());
    }

    private static List<String> expected(final NavigableMap<String, String> range, final int count)
    {
        final List<String> entries = new ArrayList<>();
        for (final Map.Entry<String, String> entry : range.entrySet())
        {
            if (entries.size() == count)
            {
                break;
            }
            entries.add(entry.getKey() + "=" + entry.getValue());
        }
        return entries;
    }

    private static List<String> entries(final List<Map.Entry<byte[], byte[]>> scanned)
    {
        final List<String> entries = new ArrayList<>();
        scanned.forEach(entry -> entries.add(string(entry.getKey()) + "=" + string(entry.getValue())));
        return entries;
    }

    private KvClient store(final int replicas)
    {
        return open.store(directory, NODES, replicas, new KvClientContext().collectionSegmentBytes(64),
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(256 << 10).heapChunks(96), new ArrayList<>());
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

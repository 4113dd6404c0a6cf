package io.dkv.client;

import io.dkv.client.collection.Collection;
import io.dkv.client.collection.Composites;
import io.dkv.client.ordered.ElementList;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hashes and sets (client/README.md, "Hashes and sets"): a header at the key, elements in segments that split and
 * merge by linear hashing, each change one transaction; a collection is no string to the single-key operations.
 */
@Timeout(180)
class CollectionTest
{
    private static final long[] NODES = {1, 2};
    private static final byte[] KEY = bytes("h");

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aHashAnswersAsAMapThroughSplitsAndMerges(final int replicas)
    {
        // 64 bytes a segment: a few elements each, so that the hash splits and merges many times
        final KvClient client = store(replicas, 64);
        final Map<String, String> model = new HashMap<>();
        final Random random = new Random(42);
        int mostSegments = 0;
        for (int step = 0; step < 1_500; step++)
        {
            final String field = "f" + random.nextInt(300);
            final boolean add = step < 900 || random.nextInt(3) == 0;
            final String value = "v" + step;
            final boolean changed = client.transact(tx ->
            {
                final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
                final boolean result = add ? hash.put(bytes(field), bytes(value)) : hash.remove(bytes(field));
                hash.write();
                return result;
            });
            assertEquals(add ? !model.containsKey(field) : model.containsKey(field), changed, "step " + step);
            if (add)
            {
                model.put(field, value);
            }
            else
            {
                model.remove(field);
            }
            mostSegments = Math.max(mostSegments, segments(client));
        }
        assertEquals(model, contents(client));
        final int segmentsBefore = segments(client);
        assertTrue(mostSegments > 16, "the hash split: at most " + mostSegments + " segments");
        for (final String field : new ArrayList<>(model.keySet()))
        {
            client.transact(tx ->
            {
                final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
                assertArrayEquals(bytes(model.get(field)), hash.get(bytes(field)));
                hash.remove(bytes(field));
                hash.write();
                return null;
            });
            model.remove(field);
            if (model.size() == 3)
            {
                assertTrue(segments(client) < segmentsBefore, "merged as it emptied: " + segments(client));
            }
        }
        assertEquals(-1, (int)client.transact(tx -> Collection.kindAt(tx, KEY)), "an empty hash is no key");
        assertEquals(0, Opened.allKeys(client), "no segment left behind");
    }

    @Test
    void aCollectionIsNoStringToTheSingleKeyOperations()
    {
        final KvClient client = store(1, 2048);
        put(client, KEY, "field", "value");
        client.put(bytes("s"), bytes("string"));

        assertThrows(WrongKindException.class, () -> client.get(KEY));
        assertEquals(WrongKindException.class,
            assertThrows(CompletionException.class, () -> client.getAsync(KEY).join()).getCause().getClass());
        assertThrows(WrongKindException.class, () -> client.put(KEY, bytes("x")), "a put does not replace it");
        assertThrows(WrongKindException.class, () -> client.delete(KEY), "nor does a delete");
        assertEquals(Arrays.asList(null, "string"), strings(client.multiGet(List.of(KEY, bytes("s")))));
        assertEquals(Arrays.asList(null, "string"), strings(client.multiGetAsync(List.of(KEY, bytes("s"))).join()));
        assertEquals(ValueKind.HASH, client.getVersioned(KEY).kind());
        assertEquals(-1, client.ttlMillis(KEY));
        assertThrows(WrongKindException.class, () -> client.transact(tx -> tx.get(KEY)));
        assertThrows(WrongKindException.class,
            () -> client.transact(tx -> Collection.open(tx, bytes("s"), ValueKind.SET, 2048)));
        assertThrows(IllegalArgumentException.class, () -> client.put(ReservedKeys.segmentKey(1, 0), bytes("x")));

        assertEquals(List.of("h", "s"), userKeys(client), "a scan shows the hash's key, not its segments");
        assertEquals(2, client.flush());
        assertEquals(0, Opened.allKeys(client), "a flush takes the segments too");
    }

    @Test
    void aTransactionReplacesACollectionWithAString()
    {
        final KvClient client = store(1, 2048);
        put(client, KEY, "field", "value");

        client.transact(tx ->
        {
            Collection.open(tx, KEY, ValueKind.HASH, 2048).drop();
            tx.put(KEY, bytes("string"));
            return null;
        });

        assertArrayEquals(bytes("string"), client.get(KEY));
        assertEquals(1, Opened.allKeys(client));
    }

    @Test
    void aCollectionExpiresWhole()
    {
        final KvClient client = store(1, 64);
        for (int i = 0; i < 40; i++)
        {
            put(client, KEY, "f" + i, "v" + i);
        }
        assertTrue(segments(client) > 1);
        final long past = client.epochClock().time() - 1;

        client.transact(tx ->
        {
            final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
            hash.expireAt(past);
            hash.write();
            return null;
        });

        assertEquals(-2, client.ttlMillis(KEY));
        assertEquals(0, userKeys(client).size());
        assertEquals(0, Opened.allKeys(client), "the segments expired with the header");
    }

    @Test
    void concurrentAddsAreAllKept() throws Exception
    {
        final KvClient client = store(2, 128);
        final AtomicInteger failures = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++)
        {
            final int thread = t;
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    for (int i = 0; i < 150; i++)
                    {
                        put(client, KEY, "t" + thread + ":" + i, "");
                    }
                }
                catch (final RuntimeException ex)
                {
                    failures.incrementAndGet();
                    throw ex;
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(0, failures.get());
        assertEquals(450, contents(client).size());
        assertEquals(450L, (long)client.transact(tx -> Collection.open(tx, KEY, ValueKind.HASH, 128).size()));
    }

    /**
     * Rule 2 (client/README.md, "Hashes and sets"): every change rewrites the header, and a commit checks the header
     * alone. Transfers between fields of one hash (values only, counts unchanged) run beside readers of the whole
     * hash: every reader sees the total, and no transfer is lost. A variant that rewrites the header only when the
     * count or the split state changes fails both (torn sums read, transfers lost: the segments' writes are blind).
     */
    @Test
    void transfersBetweenFieldsAreNeverSeenInPartOrLost() throws Exception
    {
        final KvClient client = store(2, 64);
        final int accounts = 24;
        client.transact(tx ->
        {
            final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
            for (int a = 0; a < accounts; a++)
            {
                hash.put(bytes("account:" + a), bytes("1000"));
            }
            hash.write();
            return null;
        });
        assertTrue(segments(client) >= 4, "the accounts span segments: " + segments(client));
        final AtomicInteger torn = new AtomicInteger();
        final AtomicInteger failures = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            final Random random = new Random(t);
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    for (int i = 0; i < 200; i++)
                    {
                        final int from = random.nextInt(accounts);
                        final int to = (from + 1 + random.nextInt(accounts - 1)) % accounts;
                        client.transact(tx ->
                        {
                            final Collection hash = Collection.open(tx, KEY, ValueKind.HASH, 64);
                            final byte[] fromField = bytes("account:" + from);
                            final byte[] toField = bytes("account:" + to);
                            hash.put(fromField, bytes(Long.toString(Long.parseLong(string(hash.get(fromField))) - 1)));
                            hash.put(toField, bytes(Long.toString(Long.parseLong(string(hash.get(toField))) + 1)));
                            hash.write();
                            return null;
                        });
                    }
                }
                catch (final RuntimeException ex)
                {
                    failures.incrementAndGet();
                    throw ex;
                }
            }));
        }
        final Thread reader = Thread.ofPlatform().start(() ->
        {
            for (int i = 0; i < 300; i++)
            {
                final long total = client.transact(tx ->
                {
                    final long[] sum = {0};
                    Collection.open(tx, KEY, ValueKind.HASH, 64).forEach((field, value) ->
                        sum[0] += Long.parseLong(string(value)));
                    return sum[0];
                });
                if (total != 1000L * accounts)
                {
                    torn.incrementAndGet();
                }
            }
        });
        for (final Thread thread : threads)
        {
            thread.join();
        }
        reader.join();
        assertEquals(0, failures.get());
        assertEquals(0, torn.get(), "reads that saw a transfer in part");
        long total = 0;
        for (final String value : contents(client).values())
        {
            total += Long.parseLong(value);
        }
        assertEquals(1000L * accounts, total, "no transfer lost");
    }

    @Test
    void aCopyIsItsOwnAndARenameKeepsTheSegments()
    {
        final KvClient client = store(1, 64);
        for (int i = 0; i < 30; i++)
        {
            put(client, KEY, "f" + i, "v" + i);
        }
        final byte[] copy = bytes("copy");
        client.transact(tx ->
        {
            Collection.open(tx, KEY, ValueKind.HASH, 64).copyTo(copy);
            return null;
        });
        put(client, KEY, "f0", "changed");

        final Map<String, String> copied = contents(client, copy);
        assertEquals(30, copied.size());
        assertEquals("v0", copied.get("f0"));
        assertEquals("changed", contents(client).get("f0"));
        final boolean extra =
            client.transact(tx -> Collection.open(tx, copy, ValueKind.HASH, 64).contains(bytes("f30")));
        assertFalse(extra);
        assertNull(client.transact(tx -> Collection.open(tx, bytes("none"), ValueKind.HASH, 64).get(bytes("f0"))));
    }

    private static void put(final KvClient client, final byte[] key, final String field, final String value)
    {
        client.transact(tx ->
        {
            final Collection hash = Collection.open(tx, key, ValueKind.HASH, client.collectionSegmentBytes());
            hash.put(bytes(field), bytes(value));
            hash.write();
            return null;
        });
    }

    private static int segments(final KvClient client)
    {
        return client.transact(tx -> Collection.open(tx, KEY, ValueKind.HASH, 64).segments());
    }

    private static Map<String, String> contents(final KvClient client)
    {
        return contents(client, KEY);
    }

    private static Map<String, String> contents(final KvClient client, final byte[] key)
    {
        return client.transact(tx ->
        {
            final Map<String, String> read = new TreeMap<>();
            Collection.open(tx, key, ValueKind.HASH, 64).forEach((field, value) ->
                assertNull(read.put(string(field), string(value)), "a field comes once"));
            return read;
        });
    }

    private static List<String> userKeys(final KvClient client)
    {
        final List<String> keys = new ArrayList<>();
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scan(cursor, 100, null);
            page.keys().forEach(key -> keys.add(string(key)));
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        keys.sort(String::compareTo);
        return keys;
    }


    private static List<String> strings(final List<byte[]> values)
    {
        final List<String> strings = new ArrayList<>();
        values.forEach(value -> strings.add(value == null ? null : string(value)));
        return strings;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"set, r = 1", "set, r = 2", "list, r = 1", "list, r = 2"})
    void aLargeCollectionIsDeletedAtFullItsBlocksRemovedOnceItsHeaderIs(final String setting)
    {
        final boolean list = setting.startsWith("list");
        final int replicas = setting.endsWith("2") ? 2 : 1;
        // two nodes of 8 MiB of heap, 1/32 of each kept for deletes: a collection of about 1 MB is four times that
        final KvClient client = open.store(directory, NODES, replicas, new KvClientContext()
            .collectionSegmentBytes(2048), () -> new MemoryNodeContext().indexGroups(256)
            .chunkBytes(256 << 10).heapChunks(32).reserveShare(32), new ArrayList<>());
        final byte[] big = bytes("big");
        client.transact(tx ->
        {
            final ElementList elements = list ? ElementList.open(tx, big, 2048) : null;
            final Collection members = list ? null : Collection.open(tx, big, ValueKind.SET, 2048);
            for (int i = 0; i < 20_000; i++)
            {
                final byte[] element = bytes("element-of-the-big-collection-" + i);
                if (list)
                {
                    elements.push(false, element);
                }
                else
                {
                    members.add(element);
                }
            }
            if (list)
            {
                elements.write();
            }
            else
            {
                members.write();
            }
            return null;
        });
        final int blocks = Opened.allKeys(client);
        assertTrue(blocks > 16, blocks + " blocks");
        final byte[] value = new byte[1000];
        int strings = 0;
        MemoryFullException full = null;
        while (full == null)
        {
            try
            {
                client.put(bytes("filler-" + strings), value);
                strings++;
            }
            catch (final MemoryFullException ex)
            {
                full = ex;
            }
            assertTrue(strings < 20_000, "two heaps of 8 MiB take fewer than 20,000 values of 1 KB");
        }

        assertThrows(RuntimeException.class, () -> client.transact(tx ->
        {
            Composites.open(tx, big, list ? ValueKind.LIST : ValueKind.SET, 2048).drop();
            throw new IllegalStateException("aborted");
        }), "a drop whose transaction aborts removes nothing");
        assertEquals(blocks + strings, Opened.allKeys(client), "the header, its blocks and the strings");

        client.transact(tx ->
        {
            Composites.open(tx, big, list ? ValueKind.LIST : ValueKind.SET, 2048).drop();
            return null;
        });
        assertNull(client.transact(tx -> tx.read(big)), "deleted at full: " + full.getMessage());
        assertEquals(strings, Opened.allKeys(client), "its blocks and its journal are gone too");
    }

    private KvClient store(final int replicas, final int segmentBytes)
    {
        return open.store(directory, NODES, replicas, new KvClientContext().collectionSegmentBytes(segmentBytes),
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(256 << 10).heapChunks(16), new ArrayList<>());
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

package io.dkv.client;

import io.dkv.client.collection.Composites;
import io.dkv.client.ordered.ElementList;
import io.dkv.client.ordered.SortedSet;
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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sorted sets and lists on memory nodes (client/README.md, "Sorted sets and lists"): ordered trees whose nodes are
 * blocks of the store, each change one transaction, at r = 1 and 2; concurrent writers and readers of one value;
 * removal, copies and expiry leaving no node behind.
 */
@Timeout(300)
class OrderedDataTest
{
    private static final long[] NODES = {1, 2};
    /** 64-byte segments: 256-byte tree nodes, a few elements each, so that the trees split and merge all along. */
    private static final int SEGMENT_BYTES = 64;
    private static final byte[] KEY = bytes("z");

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aSortedSetAnswersAsAMapThroughSplitsAndMerges(final int replicas)
    {
        final KvClient client = store(replicas);
        final Map<String, Double> model = new TreeMap<>();
        final Random random = new Random(17);
        for (int step = 0; step < 1_200; step++)
        {
            final String member = "m" + random.nextInt(250);
            final boolean add = step < 700 || random.nextInt(3) == 0;
            final double score = random.nextInt(50) / 2.0;
            final Double before = client.transact(tx ->
            {
                final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
                final Double result = add ? set.put(bytes(member), score) :
                    set.remove(bytes(member)) ? Double.valueOf(0) : null;
                set.write();
                return result;
            });
            if (add)
            {
                assertEquals(model.put(member, score), before, "step " + step);
            }
            else
            {
                assertEquals(model.remove(member) != null, before != null, "step " + step);
            }
        }
        final List<String> byScore = new ArrayList<>(model.keySet());
        byScore.sort((a, b) -> model.get(a).equals(model.get(b)) ? a.compareTo(b) :
            Double.compare(model.get(a), model.get(b)));
        assertEquals(byScore, members(client, false));
        client.transact(tx ->
        {
            final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
            for (int i = 0; i < byScore.size(); i += 7)
            {
                assertEquals(i, set.rank(bytes(byScore.get(i))), "rank of " + byScore.get(i));
                assertEquals(model.get(byScore.get(i)), set.score(bytes(byScore.get(i))));
            }
            assertEquals(model.values().stream().filter(score -> score < 10).count(), set.countBelow(10, false));
            return null;
        });
        assertTrue(Opened.allKeys(client) > 20, "the trees have many nodes: " + Opened.allKeys(client));
        client.transact(tx ->
        {
            final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
            set.removeRange(0, set.size());
            set.write();
            return null;
        });
        assertEquals(-1, (int)client.transact(tx -> kindAt(tx, KEY)), "an empty sorted set is no key");
        assertEquals(0, Opened.allKeys(client), "no node left behind");
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void writersAtOnceLoseNoMemberAndReadersSeeWholeTransfers(final int replicas) throws Exception
    {
        final KvClient client = store(replicas);
        final int writers = 3;
        final int each = 60;
        final AtomicInteger reads = new AtomicInteger();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        client.transact(tx ->
        {
            final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
            for (int i = 0; i < 40; i++)
            {
                set.put(bytes("account" + i), 100);
            }
            set.write();
            return null;
        });
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++)
        {
            final int writer = w;
            threads.add(Thread.ofPlatform().uncaughtExceptionHandler((thread, failure) ->
                failures.add("writer " + writer + " failed: " + failure)).start(() ->
            {
                final Random random = new Random(writer);
                for (int i = 0; i < each; i++)
                {
                    final int n = i;
                    client.transact(tx ->
                    {
                        final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
                        set.put(bytes("w" + writer + "-" + n), 0);
                        final byte[] from = bytes("account" + random.nextInt(40));
                        final byte[] to = bytes("account" + random.nextInt(40));
                        set.put(from, set.score(from) - 5);
                        set.put(to, set.score(to) + 5);
                        set.write();
                        return null;
                    });
                }
            }));
        }
        threads.add(Thread.ofPlatform().start(() ->
        {
            while (reads.get() < 40)
            {
                final double total = client.transact(tx ->
                {
                    final double[] sum = {0};
                    final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
                    set.forEach(0, set.size(), false, (member, score) ->
                    {
                        sum[0] += score;
                        return true;
                    });
                    return sum[0];
                });
                if (total != 4_000)
                {
                    failures.add("a read summed " + total);
                }
                reads.incrementAndGet();
            }
        }));
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertEquals(List.of(), new ArrayList<>(failures));
        final TreeSet<String> members = new TreeSet<>(members(client, false));
        for (int w = 0; w < writers; w++)
        {
            for (int i = 0; i < each; i++)
            {
                assertTrue(members.contains("w" + w + "-" + i), "member w" + w + "-" + i + " kept");
            }
        }
        assertEquals(40 + writers * each, members.size());
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aListKeepsItsOrderThroughPushesAndPopsAtBothEnds(final int replicas) throws Exception
    {
        final KvClient client = store(replicas);
        final byte[] key = bytes("l");
        final int pushers = 2;
        final int each = 150;
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < pushers; p++)
        {
            final int pusher = p;
            threads.add(Thread.ofPlatform().start(() ->
            {
                for (int i = 0; i < each; i++)
                {
                    final int n = i;
                    client.transact(tx ->
                    {
                        final ElementList list = ElementList.open(tx, key, SEGMENT_BYTES);
                        list.push(pusher == 0, bytes(pusher + ":" + n));
                        list.write();
                        return null;
                    });
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        final List<String> all = client.transact(tx ->
        {
            final List<String> read = new ArrayList<>();
            ElementList.open(tx, key, SEGMENT_BYTES).forEach(0, Long.MAX_VALUE, false, element ->
                read.add(string(element)));
            return read;
        });
        assertEquals(pushers * each, all.size());
        for (int i = 0; i < each; i++)
        {
            assertEquals("0:" + (each - 1 - i), all.get(i), "heads pushed in reverse order");
            assertEquals("1:" + i, all.get(each + i), "tails pushed in order");
        }
        final List<String> popped = new ArrayList<>();
        for (int i = 0; i < pushers * each; i++)
        {
            final boolean head = i % 2 == 0;
            popped.add(client.transact(tx ->
            {
                final ElementList list = ElementList.open(tx, key, SEGMENT_BYTES);
                final byte[] element = list.pop(head);
                list.write();
                return string(element);
            }));
        }
        assertEquals(all.size(), popped.size());
        assertEquals(all.getFirst(), popped.get(0));
        assertEquals(all.getLast(), popped.get(1));
        assertEquals(-1, (int)client.transact(tx -> kindAt(tx, key)), "an empty list is no key");
        assertEquals(0, Opened.allKeys(client), "no node left behind");
    }

    @Test
    void aListAnswersAsAnArrayListThroughRandomChangesAtItsEndsAndInside()
    {
        final KvClient client = store(1);
        final byte[] key = bytes("random list");
        final Random random = new Random(37);
        final List<String> model = new ArrayList<>();
        for (int step = 0; step < 4_000; step++)
        {
            final int op = random.nextInt(20);
            // mostly short elements, which the end buffers take; some of 200 to 700 bytes, which fill them; a few
            // longer than a buffer, which go to the tree whatever the index
            final int length = random.nextInt(10) < 8 ? random.nextInt(20) : random.nextInt(10) < 8 ?
                200 + random.nextInt(500) : 600 + random.nextInt(2_000);
            final String element = step + "-" + "e".repeat(length);
            final int size = model.size();
            final int index = size == 0 ? 0 : random.nextBoolean() ? random.nextInt(size) :
                random.nextBoolean() ? 0 : size - 1;
            final int to = Math.min(size, index + 1 + random.nextInt(random.nextBoolean() ? 3 : size + 1));
            final int insertAt = random.nextBoolean() ? random.nextInt(size + 1) : random.nextBoolean() ? 0 : size;
            final String answer = client.transact(tx ->
            {
                final ElementList list = ElementList.open(tx, key, SEGMENT_BYTES);
                assertEquals(size, list.size(), "the size");
                String said = null;
                if (op < 6 || size == 0)
                {
                    list.push(op % 2 == 0, bytes(element));
                }
                else if (op < 10)
                {
                    said = string(list.pop(op % 2 == 0));
                }
                else if (op < 12)
                {
                    list.insert(insertAt, bytes(element));
                }
                else if (op < 13)
                {
                    said = string(list.removeAt(index));
                }
                else if (op < 15)
                {
                    list.set(index, bytes(element));
                }
                else if (op < 16)
                {
                    list.removeRange(index, to);
                }
                else if (op < 18)
                {
                    said = string(list.get(index));
                }
                else
                {
                    final StringBuilder seen = new StringBuilder();
                    list.forEach(index, to, op == 19, value -> seen.append(string(value)).append(',') != null);
                    said = seen.toString();
                }
                list.write();
                return said;
            });
            final String expected = apply(model, op, new int[] {size, index, to, insertAt}, element);
            assertEquals(expected, answer, "step " + step + ", op " + op + " at " + index + " to " + to);
            if (step % 250 == 0 || model.isEmpty())
            {
                assertEquals(model, client.transact(tx ->
                {
                    final List<String> all = new ArrayList<>();
                    ElementList.open(tx, key, SEGMENT_BYTES).forEach(0, Long.MAX_VALUE, false, value ->
                        all.add(string(value)));
                    return all;
                }), "the whole list after step " + step);
            }
        }
    }

    /** What {@link #aListAnswersAsAnArrayListThroughRandomChangesAtItsEndsAndInside} expects, done to the model. */
    private static String apply(final List<String> model, final int op, final int[] at, final String element)
    {
        final int size = at[0];
        final int index = at[1];
        final int to = at[2];
        if (op < 6 || size == 0)
        {
            model.add(op % 2 == 0 ? 0 : size, element);
            return null;
        }
        if (op < 10)
        {
            return model.remove(op % 2 == 0 ? 0 : size - 1);
        }
        return switch (op)
        {
            case 10, 11 ->
            {
                model.add(at[3], element);
                yield null;
            }
            case 12 -> model.remove(index);
            case 13, 14 ->
            {
                model.set(index, element);
                yield null;
            }
            case 15 ->
            {
                model.subList(index, to).clear();
                yield null;
            }
            case 16, 17 -> model.get(index);
            default ->
            {
                final List<String> range = new ArrayList<>(model.subList(index, to));
                yield String.join(",", op == 19 ? range.reversed() : range) + ",";
            }
        };
    }

    @Test
    void copiesExpiryAndDeletionTakeEveryNode()
    {
        final KvClient client = store(1);
        client.transact(tx ->
        {
            final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
            for (int i = 0; i < 300; i++)
            {
                set.put(bytes("member" + i), i);
            }
            set.write();
            return null;
        });
        final int setKeys = Opened.allKeys(client);
        client.transact(tx ->
        {
            final ElementList list = ElementList.open(tx, bytes("l"), SEGMENT_BYTES);
            for (int i = 0; i < 300; i++)
            {
                list.push(false, bytes("element" + i));
            }
            list.write();
            return null;
        });
        final int nodes = Opened.allKeys(client);
        client.transact(tx ->
        {
            Composites.open(tx, KEY, ValueKind.ZSET, SEGMENT_BYTES).copyTo(bytes("copy"));
            return null;
        });
        assertEquals(nodes + setKeys, Opened.allKeys(client), "the copy has nodes of its own");
        assertEquals(members(client, false).size(), 300);
        client.transact(tx ->
        {
            final var value = Composites.open(tx, bytes("l"), ValueKind.LIST, SEGMENT_BYTES);
            value.expireAt(System.currentTimeMillis() + 3_600_000);
            value.write();
            return null;
        });
        assertTrue(client.transact(tx -> tx.expireAtMillis(bytes("l"))) > System.currentTimeMillis());
        assertThrows(WrongKindException.class, () -> client.get(KEY));
        client.transact(tx ->
        {
            for (final String key : List.of("z", "copy", "l"))
            {
                Composites.open(tx, bytes(key), kindAt(tx, bytes(key)), SEGMENT_BYTES).drop();
            }
            return null;
        });
        assertEquals(0, Opened.allKeys(client), "no node left behind");
    }

    private static int kindAt(final io.dkv.client.txn.Transaction tx, final byte[] key)
    {
        final var read = tx.read(key);
        return read == null ? -1 : read.kind();
    }

    private static List<String> members(final KvClient client, final boolean reverse)
    {
        return client.transact(tx ->
        {
            final List<String> members = new ArrayList<>();
            final SortedSet set = SortedSet.open(tx, KEY, SEGMENT_BYTES);
            set.forEach(0, set.size(), reverse, (member, score) -> members.add(string(member)));
            return members;
        });
    }


    private KvClient store(final int replicas)
    {
        return open.store(directory, NODES, replicas, new KvClientContext().collectionSegmentBytes(SEGMENT_BYTES),
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

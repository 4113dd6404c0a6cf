package io.dkv.memory;

import io.dkv.client.layout.KvBlockLayout;
import io.dkv.client.layout.SlotWord;
import io.dkv.client.Versioned;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads racing on the same keys through one client: racing inserts leave one slot per key and
 * one of the values written, and compare-and-set increments are never lost.
 */
class ConcurrentWritersTest
{
    private static final int THREADS = 4;

    @Test
    void racingInsertsOfOneKeyLeaveOneSlotHoldingOneOfTheirValues() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final int rounds = 1000;
            final CyclicBarrier start = new CyclicBarrier(THREADS);
            runThreads(thread ->
            {
                for (int round = 0; round < rounds; round++)
                {
                    start.await();
                    cluster.client.put(key(round),
                        ("round " + round + " thread " + thread).getBytes(StandardCharsets.UTF_8));
                }
            }, start::reset);
            final Map<String, Integer> slots = committedSlotsByKey(cluster);
            assertEquals(rounds, slots.size());
            for (int round = 0; round < rounds; round++)
            {
                assertEquals(1, slots.get(new String(key(round), StandardCharsets.UTF_8)),
                    "committed slots of round " + round);
                final String value = new String(cluster.client.get(key(round)), StandardCharsets.UTF_8);
                assertTrue(value.startsWith("round " + round + " thread "), value);
            }
            assertEquals(0, tentativeSlots(cluster), "no tentative slot is left behind");
        }
    }

    @Test
    void compareAndSetIncrementsAreNeverLost() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final byte[] counter = "counter".getBytes(StandardCharsets.UTF_8);
            final int perThread = 500;
            final AtomicInteger successes = new AtomicInteger();
            runThreads(thread ->
            {
                for (int i = 0; i < perThread; i++)
                {
                    while (true)
                    {
                        final byte[] current = cluster.client.get(counter);
                        final long next =
                            current == null ? 1 : Long.parseLong(new String(current, StandardCharsets.UTF_8)) + 1;
                        if (cluster.client.compareAndSet(counter, current,
                            Long.toString(next).getBytes(StandardCharsets.UTF_8)))
                        {
                            successes.incrementAndGet();
                            break;
                        }
                    }
                }
            }, () -> { });
            assertEquals(THREADS * perThread, successes.get());
            assertEquals(Long.toString(THREADS * perThread),
                new String(cluster.client.get(counter), StandardCharsets.UTF_8));
            assertEquals(Map.of("counter", 1), committedSlotsByKey(cluster));
        }
    }

    @Test
    void versionedIncrementsAreNeverLost() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final byte[] counter = "counter".getBytes(StandardCharsets.UTF_8);
            cluster.client.put(counter, "0".getBytes(StandardCharsets.UTF_8));
            final int perThread = 500;
            runThreads(thread ->
            {
                for (int i = 0; i < perThread; i++)
                {
                    while (true)
                    {
                        final Versioned current = cluster.client.getVersioned(counter);
                        final long next = Long.parseLong(new String(current.value(), StandardCharsets.UTF_8)) + 1;
                        if (cluster.client.compareAndSetVersion(counter, current,
                            Long.toString(next).getBytes(StandardCharsets.UTF_8)))
                        {
                            break;
                        }
                    }
                }
            }, () -> { });
            assertEquals(Long.toString(THREADS * perThread),
                new String(cluster.client.get(counter), StandardCharsets.UTF_8));
            assertEquals(Map.of("counter", 1), committedSlotsByKey(cluster));
        }
    }

    @Test
    void keysDeletedAndPutAgainByRacingThreadsEndWithOneSlotOrNone() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final int keys = 8;
            final int operations = 600;
            runThreads(thread ->
            {
                for (int i = 0; i < operations; i++)
                {
                    final byte[] key = key((i * 7 + thread) % keys);
                    if ((i + thread) % 3 == 0)
                    {
                        cluster.client.delete(key);
                    }
                    else
                    {
                        cluster.client.put(key, ("t" + thread + " i" + i).getBytes(StandardCharsets.UTF_8));
                    }
                }
            }, () -> { });
            final Map<String, Integer> slots = committedSlotsByKey(cluster);
            for (int k = 0; k < keys; k++)
            {
                final Integer count = slots.get(new String(key(k), StandardCharsets.UTF_8));
                final byte[] value = cluster.client.get(key(k));
                if (count == null)
                {
                    assertNull(value);
                }
                else
                {
                    assertEquals(1, count, "committed slots of key " + k);
                    assertTrue(value != null);
                }
            }
            assertEquals(0, tentativeSlots(cluster));
        }
    }

    /** What each thread does, given its number. */
    @FunctionalInterface
    private interface ThreadBody
    {
        void run(int thread) throws Exception;
    }

    /**
     * Run the body on {@link #THREADS} threads and wait for them.
     *
     * @param onFailure run when a thread fails, so that the others do not wait for it.
     * @throws AssertionError with the first failure.
     */
    private static void runThreads(final ThreadBody body, final Runnable onFailure) throws InterruptedException
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final int thread = t;
            threads.add(Thread.ofPlatform().start(() ->
            {
                try
                {
                    body.run(thread);
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    onFailure.run();
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
    }

    private static byte[] key(final int n)
    {
        return ("key-" + n).getBytes(StandardCharsets.UTF_8);
    }

    /** Read the index and the heap as the memory node holds them: committed slots per key. */
    private static Map<String, Integer> committedSlotsByKey(final KvCluster cluster)
    {
        final MemorySegment heap = cluster.memoryRaas.localMemory(cluster.memoryNode.heapRegion());
        final Map<String, Integer> counts = new HashMap<>();
        forEachSlot(cluster, word ->
        {
            if (SlotWord.isCommitted(word))
            {
                final long offset = SlotWord.blockOffset(word);
                final int keyLength = KvBlockLayout.keyLength(heap, offset);
                final byte[] key =
                    heap.asSlice(offset + KvBlockLayout.HEADER_LENGTH, keyLength).toArray(ValueLayout.JAVA_BYTE);
                counts.merge(new String(key, StandardCharsets.UTF_8), 1, Integer::sum);
            }
        });
        return counts;
    }

    private static int tentativeSlots(final KvCluster cluster)
    {
        final int[] count = new int[1];
        forEachSlot(cluster, word ->
        {
            if (!SlotWord.isEmpty(word) && !SlotWord.isCommitted(word))
            {
                count[0]++;
            }
        });
        return count[0];
    }

    private static void forEachSlot(final KvCluster cluster, final java.util.function.LongConsumer action)
    {
        IndexInspector.forEachSlot(cluster.memoryRaas.localMemory(cluster.memoryNode.indexRegion()),
            (slot, word) -> action.accept(word));
    }
}

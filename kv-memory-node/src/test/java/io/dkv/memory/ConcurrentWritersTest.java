package io.dkv.memory;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

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
    private static final int PER_THREAD = 500;
    private static final byte[] COUNTER = "counter".getBytes(StandardCharsets.UTF_8);

    @Test
    void racingInsertsOfOneKeyLeaveOneSlotHoldingOneOfTheirValues() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final int rounds = 1000;
            final CyclicBarrier start = new CyclicBarrier(THREADS);
            new Race(start::reset).start(THREADS, thread ->
            {
                for (int round = 0; round < rounds; round++)
                {
                    start.await();
                    cluster.client.put(key(round),
                        ("round " + round + " thread " + thread).getBytes(StandardCharsets.UTF_8));
                }
            }).join();
            final Map<String, Integer> slots = cluster.committedSlotsByKey();
            assertEquals(rounds, slots.size());
            for (int round = 0; round < rounds; round++)
            {
                assertEquals(1, slots.get(new String(key(round), StandardCharsets.UTF_8)),
                    "committed slots of round " + round);
                final String value = new String(cluster.client.get(key(round)), StandardCharsets.UTF_8);
                assertTrue(value.startsWith("round " + round + " thread "), value);
            }
            assertEquals(0, cluster.tentativeSlots(), "no tentative slot is left behind");
        }
    }

    @Test
    void compareAndSetIncrementsAreNeverLost() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final AtomicInteger successes = new AtomicInteger();
            Race.run(THREADS, thread ->
            {
                for (int i = 0; i < PER_THREAD; i++)
                {
                    Counters.increment(cluster.client, COUNTER);
                    successes.incrementAndGet();
                }
            });
            assertEquals(THREADS * PER_THREAD, successes.get());
            assertCounterInOneSlotHolds(cluster, THREADS * PER_THREAD);
        }
    }

    @Test
    void versionedIncrementsAreNeverLost() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            cluster.client.put(COUNTER, "0".getBytes(StandardCharsets.UTF_8));
            Race.run(THREADS, thread ->
            {
                for (int i = 0; i < PER_THREAD; i++)
                {
                    Counters.incrementVersion(cluster.client, COUNTER);
                }
            });
            assertCounterInOneSlotHolds(cluster, THREADS * PER_THREAD);
        }
    }

    @Test
    void keysDeletedAndPutAgainByRacingThreadsEndWithOneSlotOrNone() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm"))
        {
            final int keys = 8;
            final int operations = 600;
            Race.run(THREADS, thread ->
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
            });
            final Map<String, Integer> slots = cluster.committedSlotsByKey();
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
            assertEquals(0, cluster.tentativeSlots());
        }
    }

    private static byte[] key(final int n)
    {
        return ("key-" + n).getBytes(StandardCharsets.UTF_8);
    }

    private static void assertCounterInOneSlotHolds(final KvCluster cluster, final long expected)
    {
        assertEquals(Long.toString(expected), new String(cluster.client.get(COUNTER), StandardCharsets.UTF_8));
        assertEquals(Map.of("counter", 1), cluster.committedSlotsByKey());
    }
}

package io.dkv.memory;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Subtables split while other threads insert, increment counters by compare-and-set (of values
 * and of versions) and read: a key once written is found by every read after, no increment is
 * lost, and every key ends with one committed slot.
 */
class SplitWhileClientsRunTest
{
    private static final int INSERTERS = 2;
    private static final int KEYS_EACH = 600;
    private static final int COUNTERS = 4;

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The end counts every counter key, so each counter runs until it has been incremented at least once. */
    private static boolean eachAtLeastOnce(final AtomicIntegerArray increments)
    {
        for (int c = 0; c < increments.length(); c++)
        {
            if (increments.get(c) == 0)
            {
                return false;
            }
        }
        return true;
    }

    @Test
    void splitsLoseNothingWhileKeysAreInsertedUpdatedAndRead() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm", context -> context.indexGroups(2).maxGlobalDepth(9)))
        {
            final AtomicIntegerArray inserted = new AtomicIntegerArray(INSERTERS);
            final AtomicIntegerArray increments = new AtomicIntegerArray(COUNTERS);
            final AtomicIntegerArray versionedIncrements = new AtomicIntegerArray(COUNTERS);
            final AtomicBoolean inserting = new AtomicBoolean(true);
            final AtomicInteger reads = new AtomicInteger();
            final Race inserters = new Race().start(INSERTERS, inserter ->
            {
                for (int i = 0; i < KEYS_EACH; i++)
                {
                    cluster.client.put(bytes("t" + inserter + "-" + i), bytes("value " + inserter + "-" + i));
                    inserted.set(inserter, i + 1);
                }
            });
            final Race whileInserting = new Race();
            whileInserting.start(1, thread ->
            {
                for (int n = 0; inserting.get() || !eachAtLeastOnce(increments); n++)
                {
                    if (Counters.tryIncrement(cluster.client, bytes("counter-" + (n % COUNTERS))))
                    {
                        increments.incrementAndGet(n % COUNTERS);
                    }
                }
            });
            whileInserting.start(1, thread ->
            {
                for (int n = 0; inserting.get() || !eachAtLeastOnce(versionedIncrements); n++)
                {
                    if (Counters.tryIncrementVersion(cluster.client, bytes("versioned-" + (n % COUNTERS))))
                    {
                        versionedIncrements.incrementAndGet(n % COUNTERS);
                    }
                }
            });
            whileInserting.start(1, thread ->
            {
                for (int n = 0; inserting.get(); n++)
                {
                    final int inserter = n % INSERTERS;
                    final int done = inserted.get(inserter);
                    if (done == 0)
                    {
                        continue;
                    }
                    final int i = (int)((n * 7919L) % done);
                    final byte[] value = cluster.client.get(bytes("t" + inserter + "-" + i));
                    if (value == null)
                    {
                        throw new AssertionError("t" + inserter + "-" + i + " was written and then not found");
                    }
                    reads.incrementAndGet();
                }
            });
            try
            {
                inserters.join();
            }
            finally
            {
                inserting.set(false);
                whileInserting.join();
            }

            final MemorySegment index = cluster.index();
            assertTrue(IndexInspector.subtables(index) >= 16, IndexInspector.subtables(index) + " subtables");
            assertTrue(reads.get() > 0);
            for (int t = 0; t < INSERTERS; t++)
            {
                for (int i = 0; i < KEYS_EACH; i++)
                {
                    assertArrayEquals(bytes("value " + t + "-" + i), cluster.client.get(bytes("t" + t + "-" + i)),
                        "t" + t + "-" + i);
                }
            }
            for (int c = 0; c < COUNTERS; c++)
            {
                assertEquals(increments.get(c), Counters.valueOf(cluster.client.get(bytes("counter-" + c))),
                    "counter-" + c);
                assertEquals(versionedIncrements.get(c), Counters.valueOf(cluster.client.get(bytes("versioned-" + c))),
                    "versioned-" + c);
            }
            assertEquals(0, cluster.tentativeSlots(), "tentative slots left");
            final Map<String, Integer> committed = cluster.committedSlotsByKey();
            committed.forEach((key, count) -> assertEquals(1, count, "committed slots of " + key));
            assertEquals(INSERTERS * KEYS_EACH + 2 * COUNTERS, committed.size());
        }
    }
}

package io.dkv.memory;

import io.dkv.client.Versioned;
import io.dkv.client.layout.KvBlockLayout;
import io.dkv.client.layout.SlotWord;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

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

    @Test
    void splitsLoseNothingWhileKeysAreInsertedUpdatedAndRead() throws Exception
    {
        try (KvCluster cluster = new KvCluster("shm", context -> context.indexGroups(2).maxGlobalDepth(9)))
        {
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicIntegerArray inserted = new AtomicIntegerArray(INSERTERS);
            final AtomicIntegerArray increments = new AtomicIntegerArray(COUNTERS);
            final AtomicIntegerArray versionedIncrements = new AtomicIntegerArray(COUNTERS);
            final AtomicBoolean inserting = new AtomicBoolean(true);
            final AtomicInteger reads = new AtomicInteger();
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < INSERTERS; t++)
            {
                final int inserter = t;
                threads.add(start(failure, () ->
                {
                    for (int i = 0; i < KEYS_EACH; i++)
                    {
                        cluster.client.put(bytes("t" + inserter + "-" + i), bytes("value " + inserter + "-" + i));
                        inserted.set(inserter, i + 1);
                    }
                }));
            }
            threads.add(start(failure, () ->
            {
                for (int n = 0; inserting.get(); n++)
                {
                    final byte[] counter = bytes("counter-" + (n % COUNTERS));
                    final byte[] current = cluster.client.get(counter);
                    final long next =
                        current == null ? 1 : Long.parseLong(new String(current, StandardCharsets.UTF_8)) + 1;
                    if (cluster.client.compareAndSet(counter, current, bytes(Long.toString(next))))
                    {
                        increments.incrementAndGet(n % COUNTERS);
                    }
                }
            }));
            threads.add(start(failure, () ->
            {
                for (int n = 0; inserting.get(); n++)
                {
                    final byte[] counter = bytes("versioned-" + (n % COUNTERS));
                    final Versioned current = cluster.client.getVersioned(counter);
                    final long next =
                        current == null ? 1 : Long.parseLong(new String(current.value(), StandardCharsets.UTF_8)) + 1;
                    final boolean written = current == null ?
                        cluster.client.compareAndSet(counter, null, bytes(Long.toString(next))) :
                        cluster.client.compareAndSetVersion(counter, current, bytes(Long.toString(next)));
                    if (written)
                    {
                        versionedIncrements.incrementAndGet(n % COUNTERS);
                    }
                }
            }));
            threads.add(start(failure, () ->
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
            }));
            for (int t = 0; t < INSERTERS; t++)
            {
                threads.get(t).join();
            }
            inserting.set(false);
            for (final Thread thread : threads)
            {
                thread.join();
            }
            if (failure.get() != null)
            {
                throw new AssertionError(failure.get());
            }

            final MemorySegment index = cluster.memoryRaas.localMemory(cluster.memoryNode.indexRegion());
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
                final byte[] value = cluster.client.get(bytes("counter-" + c));
                assertEquals(increments.get(c),
                    value == null ? 0 : Long.parseLong(new String(value, StandardCharsets.UTF_8)),
                    "counter-" + c);
                final byte[] versioned = cluster.client.get(bytes("versioned-" + c));
                assertEquals(versionedIncrements.get(c),
                    versioned == null ? 0 : Long.parseLong(new String(versioned, StandardCharsets.UTF_8)),
                    "versioned-" + c);
            }
            final Map<String, Integer> committed = new HashMap<>();
            final int[] tentative = new int[1];
            final MemorySegment heap = cluster.memoryRaas.localMemory(cluster.memoryNode.heapRegion());
            IndexInspector.forEachSlot(index, (slot, word) ->
            {
                if (SlotWord.isEmpty(word))
                {
                    return;
                }
                if (!SlotWord.isCommitted(word))
                {
                    tentative[0]++;
                    return;
                }
                final long block = SlotWord.blockOffset(word);
                final byte[] key =
                    heap.asSlice(block + KvBlockLayout.HEADER_LENGTH, KvBlockLayout.keyLength(heap, block))
                    .toArray(ValueLayout.JAVA_BYTE);
                committed.merge(new String(key, StandardCharsets.UTF_8), 1, Integer::sum);
            });
            assertEquals(0, tentative[0], "tentative slots left");
            committed.forEach((key, count) -> assertEquals(1, count, "committed slots of " + key));
            assertEquals(INSERTERS * KEYS_EACH + 2 * COUNTERS, committed.size());
        }
    }

    @FunctionalInterface
    private interface Body
    {
        void run() throws Exception;
    }

    private static Thread start(final AtomicReference<Throwable> failure, final Body body)
    {
        return Thread.ofPlatform().start(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable ex)
            {
                failure.compareAndSet(null, ex);
            }
        });
    }
}

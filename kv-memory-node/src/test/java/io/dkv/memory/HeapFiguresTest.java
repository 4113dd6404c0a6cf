package io.dkv.memory;

import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.format.HeapLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node tells what its heap holds in the heap's header (HeapLayout), where a client reads it one-sided: its
 * capacity, the chunks handed out, the bytes of the blocks its index names (live, as of its last walk of the index,
 * which comes now and then even with nothing to reclaim), its reserve and room, the retired chunks a live block pins.
 * Live counts each block once, at its length; an overwritten value stops counting at the next walk, although its
 * chunk stays handed out until reclaimed.
 */
class HeapFiguresTest
{
    private static final int KEYS = 64;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    @Test
    void theHeaderTellsCapacityHandedOutAndLiveBytesAsBlocksAreWrittenAndReplaced() throws Exception
    {
        final int chunkBytes = 64 << 10;
        final int heapChunks = 32;
        try (KvCluster cluster = new KvCluster("shm", 1,
            context -> context.chunkBytes(chunkBytes).heapChunks(heapChunks).graceMs(300)))
        {
            final MemoryNodeHeap empty = awaitHeap(cluster, heap -> heap.walkedAtEpochMs() > 0);
            assertTrue(empty.told(), empty.toString());
            assertEquals(KvCluster.MEMORY_NODE_ID, empty.nodeId());
            assertTrue(empty.capacity() >= (long)chunkBytes * heapChunks - HeapLayout.HEADER_LENGTH,
                "capacity " + empty.capacity());
            assertTrue(empty.live() <= empty.handedOut() && empty.handedOut() <= empty.capacity(), empty.toString());
            assertTrue(empty.room() + empty.reserve() <= empty.capacity() - empty.handedOut() + chunkBytes,
                empty.toString());
            final long before = empty.live();

            final byte[] big = new byte[900];
            for (int i = 0; i < KEYS; i++)
            {
                cluster.client.put(key(i), big);
            }
            final long bigBlocks = KEYS * blockLength(key(0).length, big.length);
            final MemoryNodeHeap filled = awaitHeap(cluster, heap -> heap.live() - before == bigBlocks);
            assertTrue(filled.handedOut() >= filled.live(), filled.toString());
            assertTrue(filled.room() <= empty.room() - bigBlocks + chunkBytes, filled + " after " + empty);

            final byte[] small = new byte[100];
            for (int i = 0; i < KEYS; i++)
            {
                cluster.client.put(key(i), small);
            }
            final long smallBlocks = KEYS * blockLength(key(0).length, small.length);
            final MemoryNodeHeap replaced = awaitHeap(cluster, heap -> heap.live() - before == smallBlocks);
            assertTrue(replaced.handedOut() >= replaced.live(), replaced.toString());

            final var counters = cluster.memoryNode.counters();
            awaitHeap(cluster, heap -> counters.get(MemoryNodeCounter.HEAP_LIVE).get() == heap.live());
            assertTrue(counters.get(MemoryNodeCounter.HEAP_HANDED_OUT).get() > 0, "the counter tells it too");
        }
    }

    private static long blockLength(final int keyLength, final int valueLength)
    {
        final long bytes = KvBlockLayout.HEADER_LENGTH + keyLength + valueLength;
        return (bytes + SlotWord.UNIT - 1) / SlotWord.UNIT * SlotWord.UNIT;
    }

    private static byte[] key(final int i)
    {
        return String.format("heap-key-%03d", i).getBytes(StandardCharsets.UTF_8);
    }

    /** The node walks its index at least every few grace periods: its header tells a change within one walk. */
    private static MemoryNodeHeap awaitHeap(final KvCluster cluster, final Predicate<MemoryNodeHeap> until)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        MemoryNodeHeap heap = cluster.client.memoryNodeHeaps().get(0);
        while (!until.test(heap))
        {
            assertTrue(System.nanoTime() < deadline, "the header never told it; last read " + heap);
            Thread.sleep(20);
            heap = cluster.client.memoryNodeHeaps().get(0);
        }
        return heap;
    }
}

package io.dkv.load.bench.ycsb;

import io.dkv.client.layout.HeapLayout;
import io.dkv.client.layout.IndexLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * The floor under a dkv GET: the three memory accesses it needs (the key's two candidate combined
 * buckets of the index and its block in the heap) as three synchronous one-sided READs, one after
 * the other, through the client node's RaaS to the memory node, timed together. No hashing,
 * matching, checksum or decoding: what remains of a GET when its logic costs nothing.
 */
final class MemoryFloor
{
    static final int BUCKET_READ = IndexLayout.COMBINED_BUCKET_LENGTH;
    private static final long SEED = 42;

    private MemoryFloor()
    {
    }

    /**
     * @param raas        the client node's RaaS.
     * @param nodeId      the memory node.
     * @param groups      bucket groups of its index (one subtable, as it does not split yet).
     * @param heapInUse   bytes of the heap's chunks that hold blocks, from its first chunk on.
     * @param valueReads  bytes of the third READ: a block of the records read.
     * @param warmups     triples read, untimed, first.
     * @param samples     triples timed.
     * @return the latency of each triple, in nanoseconds.
     */
    static Histogram measure(
        final Raas raas, final long nodeId, final int groups, final long heapInUse, final int valueReads,
        final int warmups, final int samples)
    {
        final RemoteRegion index = raas.lookup(HeapLayout.indexRegionName(nodeId));
        final RemoteRegion heap = raas.lookup(HeapLayout.heapRegionName(nodeId));
        final long heapEnd = Math.min(heap.length(), HeapLayout.HEADER_LENGTH + heapInUse);
        if (heapEnd - HeapLayout.HEADER_LENGTH < valueReads)
        {
            throw new IllegalArgumentException("the heap holds " + heapInUse + " bytes of blocks; a READ of " +
                valueReads +
                " bytes needs more");
        }
        final SplittableRandom random = new SplittableRandom(SEED);
        final int total = warmups + samples;
        final long[] buckets = new long[2 * total];
        final long[] blocks = new long[total];
        final long subtable = IndexLayout.subtablesOffset(0);
        for (int i = 0; i < buckets.length; i++)
        {
            buckets[i] = subtable + IndexLayout.combinedBucketOffset(random.nextInt(groups), random.nextInt(2));
        }
        final long blockSlots = (heapEnd - HeapLayout.HEADER_LENGTH - valueReads) / 64 + 1;
        for (int i = 0; i < total; i++)
        {
            blocks[i] = HeapLayout.HEADER_LENGTH + random.nextLong(blockSlots) * 64;
        }
        final MemorySegment buffer = raas.allocateBuffer(2 * BUCKET_READ + valueReads);
        final Histogram latency = new Histogram(3);
        try (Connection connection = raas.open(nodeId, null))
        {
            for (int i = 0; i < total; i++)
            {
                final long start = System.nanoTime();
                connection.read(index, buckets[2 * i], buffer, 0, BUCKET_READ);
                connection.read(index, buckets[2 * i + 1], buffer, BUCKET_READ, BUCKET_READ);
                connection.read(heap, blocks[i], buffer, 2 * BUCKET_READ, valueReads);
                final long nanos = System.nanoTime() - start;
                if (i >= warmups)
                {
                    latency.recordValue(nanos);
                }
            }
        }
        return latency;
    }
}

package io.dkv.load.bench.ycsb;

import io.dkv.format.HeapLayout;
import io.dkv.format.IndexLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * The floor under a dkv GET: the three memory accesses it needs (the key's two candidate combined
 * buckets of the index and its block in the heap) as three synchronous one-sided READs, one after
 * the other, timed together: through the client node's RaaS to the memory node, or on a raw verbs
 * queue pair between their devices. No hashing, matching, checksum or decoding: what remains of a
 * GET when its logic costs nothing.
 */
final class MemoryFloor
{
    static final int BUCKET_READ = IndexLayout.COMBINED_BUCKET_LENGTH;
    private static final long SEED = 42;
    private static final int RAW_DEPTH = 4;

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
        final Places places = places(heap, groups, heapInUse, valueReads, warmups + samples);
        final MemorySegment buffer = raas.allocateBuffer(2 * BUCKET_READ + valueReads);
        final Histogram latency = new Histogram(3);
        try (Connection connection = raas.open(nodeId, null))
        {
            for (int i = 0; i < warmups + samples; i++)
            {
                final long start = System.nanoTime();
                connection.read(index, places.buckets[2 * i], buffer, 0, BUCKET_READ);
                connection.read(index, places.buckets[2 * i + 1], buffer, BUCKET_READ, BUCKET_READ);
                connection.read(heap, places.blocks[i], buffer, 2 * BUCKET_READ, valueReads);
                final long nanos = System.nanoTime() - start;
                if (i >= warmups)
                {
                    latency.recordValue(nanos);
                }
            }
        }
        return latency;
    }

    /**
     * As {@link #measure}, on a raw RC queue pair of the client's device connected to one of the memory node's,
     * in the protection domains the drivers registered the regions in: no RaaS between the READs and the NIC.
     *
     * @param client the client node's embedded driver.
     * @param memory the memory node's embedded driver.
     */
    static Histogram measureRaw(
        final Raas client, final Raas memory, final long nodeId, final int groups, final long heapInUse,
        final int valueReads, final int warmups, final int samples)
    {
        final RemoteRegion index = client.lookup(HeapLayout.indexRegionName(nodeId));
        final RemoteRegion heap = client.lookup(HeapLayout.heapRegionName(nodeId));
        final Places places = places(heap, groups, heapInUse, valueReads, warmups + samples);
        final ProtectionDomain clientPd = ((RaasDriver)client).protectionDomain();
        final ProtectionDomain memoryPd = ((RaasDriver)memory).protectionDomain();
        final Histogram latency = new Histogram(3);
        try (CompletionQueue cq = clientPd.device().createCq(RAW_DEPTH);
            CompletionQueue peerCq = memoryPd.device().createCq(RAW_DEPTH);
            QueuePair qp = clientPd.createQp(rc(cq));
            QueuePair peer = memoryPd.createQp(rc(peerCq));
            MemoryRegion local = clientPd.allocate(2L * BUCKET_READ + valueReads, Access.LOCAL_WRITE))
        {
            connect(qp, memoryPd.device().address(), peer.qpNum());
            connect(peer, clientPd.device().address(), qp.qpNum());
            final SendWorkRequest wr = new SendWorkRequest(1).wrId(1).opcode(Opcode.RDMA_READ)
                .sendFlags(SendFlags.SIGNALED);
            final WorkCompletion[] completion = {new WorkCompletion()};
            for (int i = 0; i < warmups + samples; i++)
            {
                final long start = System.nanoTime();
                read(qp, cq, completion, wr.local(local, 0, BUCKET_READ)
                    .remote(index.address() + places.buckets[2 * i], index.rkey()));
                read(qp, cq, completion, wr.local(local, BUCKET_READ, BUCKET_READ)
                    .remote(index.address() + places.buckets[2 * i + 1], index.rkey()));
                read(qp, cq, completion, wr.local(local, 2 * BUCKET_READ, valueReads)
                    .remote(heap.address() + places.blocks[i], heap.rkey()));
                final long nanos = System.nanoTime() - start;
                if (i >= warmups)
                {
                    latency.recordValue(nanos);
                }
            }
        }
        return latency;
    }

    /** One READ, posted and its completion polled for: 64 spins between empty polls, then yields. */
    private static void read(
        final QueuePair qp, final CompletionQueue cq, final WorkCompletion[] completion, final SendWorkRequest wr)
    {
        qp.postSend(wr);
        int spins = 0;
        while (cq.poll(completion) == 0)
        {
            if (++spins < 64)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
        if (!completion[0].isSuccess())
        {
            throw new IllegalStateException("a raw READ of the floor failed: " + completion[0]);
        }
    }

    private static QpInitAttributes rc(final CompletionQueue cq)
    {
        return new QpInitAttributes().type(QpType.RC).cq(cq).maxSendWr(RAW_DEPTH).maxRecvWr(1).maxSendSge(1)
            .maxRecvSge(1).maxInlineData(0);
    }

    private static void connect(final QueuePair qp, final PortAddress peer, final int peerQpNum)
    {
        qp.modify(QpAttributes.init(Access.ALL));
        qp.modify(QpAttributes.rtr(peer, peerQpNum));
        qp.modify(QpAttributes.rts());
    }

    /** Where each triple reads: two buckets of the index and a block of the heap among those in use. */
    private record Places(long[] buckets, long[] blocks)
    {
    }

    private static Places places(
        final RemoteRegion heap, final int groups, final long heapInUse, final int valueReads, final int total)
    {
        final long heapEnd = Math.min(heap.length(), HeapLayout.HEADER_LENGTH + heapInUse);
        if (heapEnd - HeapLayout.HEADER_LENGTH < valueReads)
        {
            throw new IllegalArgumentException("the heap holds " + heapInUse + " bytes of blocks; a READ of " +
                valueReads + " bytes needs more");
        }
        final SplittableRandom random = new SplittableRandom(SEED);
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
        return new Places(buckets, blocks);
    }
}

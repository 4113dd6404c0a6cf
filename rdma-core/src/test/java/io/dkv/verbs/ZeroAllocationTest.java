package io.dkv.verbs;

import io.dkv.verbs.tcp.TcpDevice;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Posting and polling allocate nothing in steady state: after warm-up, a loop of READ, WRITE,
 * inline WRITE, CAS, FAA, a doorbell batch and SEND/RECV allocates zero bytes on the posting
 * thread, and (tcp) on both devices' NIC engine threads.
 */
class ZeroAllocationTest extends TwoNodeTest
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @MethodSource("io.dkv.verbs.TestNode#providers")
    void postAndPollAllocateNothingAfterWarmUp(final String provider)
    {
        assertTrue(THREADS.isThreadAllocatedMemorySupported());
        THREADS.setThreadAllocatedMemoryEnabled(true);
        open(provider);
        final QueuePair[] qps = a.connectRc(b);
        final Workload workload = new Workload(qps[0], qps[1]);

        workload.run(20_000);

        final List<Thread> threads = new ArrayList<>();
        threads.add(Thread.currentThread());
        if (a.device instanceof TcpDevice tcpA && b.device instanceof TcpDevice tcpB)
        {
            threads.add(tcpA.engineThread());
            threads.add(tcpB.engineThread());
        }
        final long[] ids = threads.stream().mapToLong(Thread::threadId).toArray();
        // the measurement itself allocates the array it returns: measure that once and subtract it
        final long[] first = THREADS.getThreadAllocatedBytes(ids);
        final long[] second = THREADS.getThreadAllocatedBytes(ids);
        final long measurementCost = second[0] - first[0];

        final long[] before = THREADS.getThreadAllocatedBytes(ids);
        workload.run(5_000);
        final long[] after = THREADS.getThreadAllocatedBytes(ids);
        assertEquals(0, after[0] - before[0] - measurementCost,
            "bytes allocated by the posting thread over 5,000 iterations of the workload");
        for (int i = 1; i < ids.length; i++)
        {
            assertEquals(0, after[i] - before[i], "bytes allocated by " + threads.get(i).getName() +
                " over 5,000 iterations of the workload");
        }
    }

    /**
     * One iteration: a READ, a WRITE, an inline WRITE, a CAS, a FAA, a batch of four WRITEs and a
     * SEND with its receive, each waited for. Everything is preallocated.
     */
    private final class Workload
    {
        private final QueuePair qp;
        private final QueuePair peer;
        private final SendWorkRequest read = new SendWorkRequest();
        private final SendWorkRequest write = new SendWorkRequest();
        private final SendWorkRequest inline = new SendWorkRequest();
        private final SendWorkRequest cas = new SendWorkRequest();
        private final SendWorkRequest faa = new SendWorkRequest();
        private final SendWorkRequest[] batch = new SendWorkRequest[4];
        private final SendWorkRequest send = new SendWorkRequest();
        private final RecvWorkRequest recv = new RecvWorkRequest();
        private final WorkCompletion[] wcs = new WorkCompletion[8];

        Workload(final QueuePair qp, final QueuePair peer)
        {
            this.qp = qp;
            this.peer = peer;
            final long remote = b.region.address();
            final int rkey = b.region.rkey();
            read.opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).local(a.region, 0, 8).remote(remote + 64, rkey);
            write.opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED).local(a.region, 64, 64)
                .remote(remote + 128, rkey);
            inline.opcode(Opcode.RDMA_WRITE).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE).local(a.region, 64, 32)
                .remote(remote + 256, rkey);
            cas.opcode(Opcode.ATOMIC_CMP_AND_SWP).sendFlags(SendFlags.SIGNALED).local(a.region, 8, 8)
                .remote(remote, rkey)
                .compareAdd(0).swap(0);
            faa.opcode(Opcode.ATOMIC_FETCH_AND_ADD).sendFlags(SendFlags.SIGNALED).local(a.region, 16, 8)
                .remote(remote + 8, rkey)
                .compareAdd(1);
            for (int i = 0; i < batch.length; i++)
            {
                batch[i] = new SendWorkRequest().opcode(Opcode.RDMA_WRITE).local(a.region, 64, 8)
                    .remote(remote + 512 + i * 8L, rkey);
                if (i > 0)
                {
                    batch[i - 1].next(batch[i]);
                }
            }
            batch[batch.length - 1].sendFlags(SendFlags.SIGNALED);
            send.opcode(Opcode.SEND_WITH_IMM).immData(1).sendFlags(SendFlags.SIGNALED).local(a.region, 64, 16);
            recv.local(b.region, 4096, 64);
            for (int i = 0; i < wcs.length; i++)
            {
                wcs[i] = new WorkCompletion();
            }
        }

        void run(final int iterations)
        {
            for (int i = 0; i < iterations; i++)
            {
                once(read);
                once(write);
                once(inline);
                once(cas);
                once(faa);
                once(batch[0]);
                peer.postRecv(recv);
                qp.postSend(send);
                awaitOne(b.cq);
                awaitOne(a.cq);
            }
        }

        private void once(final SendWorkRequest wr)
        {
            qp.postSend(wr);
            awaitOne(a.cq);
        }

        private void awaitOne(final CompletionQueue cq)
        {
            while (true)
            {
                b.cq.poll(wcs, 0);
                final int n = cq.poll(wcs, 1);
                if (n == 1)
                {
                    if (wcs[0].status() != WcStatus.SUCCESS)
                    {
                        throw new AssertionError(wcs[0].toString());
                    }
                    return;
                }
                Thread.onSpinWait();
            }
        }
    }
}

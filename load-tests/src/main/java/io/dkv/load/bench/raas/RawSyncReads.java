package io.dkv.load.bench.raas;

import io.dkv.load.bench.RemoteTargets;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.IdleStrategy;


/**
 * READs on a raw RC queue pair, one at a time: posted signaled, the CQ polled until it completes,
 * waiting between empty polls as {@link Waiting} says. The request and completion are reused.
 */
final class RawSyncReads implements TimedLoop
{
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final SendWorkRequest request;
    private final WorkCompletion[] completion = {new WorkCompletion()};
    private final IdleStrategy idleStrategy = Waiting.newIdleStrategy();
    private final RemoteTargets targets;
    private final String description;

    RawSyncReads(
        final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final MemoryRegion remote,
        final int size, final long[] offsets)
    {
        this.qp = qp;
        this.description = "READ on " + qp;
        this.cq = cq;
        this.request =
            new SendWorkRequest(1).wrId(1).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED).local(local, 0, size);
        this.targets = new RemoteTargets(remote, offsets);
    }

    public void run(final int count, final Histogram latencies)
    {
        final long highest = latencies.getHighestTrackableValue();
        for (int i = 0; i < count; i++)
        {
            targets.aim(request);
            final long start = System.nanoTime();
            qp.postSend(request);
            await(start);
            latencies.recordValue(Math.min(System.nanoTime() - start, highest));
        }
    }

    private void await(final long start)
    {
        Waiting.awaitOne(cq, completion, idleStrategy, start, description);
        if (!completion[0].isSuccess())
        {
            throw new IllegalStateException("READ on " + qp + " failed: " + completion[0]);
        }
    }
}

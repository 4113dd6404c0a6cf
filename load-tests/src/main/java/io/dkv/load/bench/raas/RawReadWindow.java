package io.dkv.load.bench.raas;

import io.dkv.load.bench.RemoteTargets;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * The raw counterpart of {@link RaasReadWindow}: one thread keeping a window of signaled READs in
 * flight over many RC queue pairs sharing one CQ, each request posted on the next queue pair in
 * turn, each completion replaced at once. Preallocated requests and completions; nothing allocated
 * on the timed path.
 */
final class RawReadWindow
{
    private final CompletionQueue cq;
    private final RemoteTargets targets;
    private final SendWorkRequest[] requests;
    private final WorkCompletion[] completions;
    private final IdleStrategy idleStrategy = Waiting.newIdleStrategy();
    private QueuePair[] qps;
    private int nextQp;

    /**
     * @param local   the initiator's buffers: request {@code i} of the window lands in slot {@code i}.
     * @param remote  the target's region.
     * @param size    bytes per READ.
     * @param window  READs in flight.
     * @param offsets offsets into the region, see {@link io.dkv.load.bench.RandomOffsets}.
     */
    RawReadWindow(
        final CompletionQueue cq, final MemoryRegion local, final MemoryRegion remote, final int size, final int window,
        final long[] offsets)
    {
        final int stride = RaasReadWindow.slotStride(size);
        if ((long)stride * window > local.length())
        {
            throw new IllegalArgumentException(window + " slots for " + size + "-byte READs do not fit " +
                local.length() + " bytes");
        }
        this.cq = cq;
        this.targets = new RemoteTargets(remote, offsets);
        this.requests = new SendWorkRequest[window];
        this.completions = new WorkCompletion[window];
        for (int i = 0; i < window; i++)
        {
            requests[i] = new SendWorkRequest(1)
                .wrId(i)
                .opcode(Opcode.RDMA_READ)
                .sendFlags(SendFlags.SIGNALED)
                .local(local, (long)i * stride, size);
            completions[i] = new WorkCompletion();
        }
    }

    /**
     * @param qps the queue pairs requests go to, in turn.
     */
    void use(final QueuePair[] qps)
    {
        this.qps = qps;
        this.nextQp = 0;
    }

    /**
     * Run {@code count} READs and wait for all of them.
     *
     * @return nanoseconds it took.
     */
    long run(final int count)
    {
        final int window = Math.min(requests.length, count);
        idleStrategy.reset();
        final long start = System.nanoTime();
        for (int i = 0; i < window; i++)
        {
            post(requests[i]);
        }
        int posted = window;
        int completed = 0;
        long lastProgress = start;
        int emptyWaits = 0;
        while (completed < count)
        {
            final int polled = cq.poll(completions);
            if (polled == 0)
            {
                if (++emptyWaits == Waiting.WAITS_PER_CLOCK_CHECK)
                {
                    emptyWaits = 0;
                    checkTimeout(lastProgress, completed, count);
                }
                idleStrategy.idle();
                continue;
            }
            for (int i = 0; i < polled; i++)
            {
                final WorkCompletion completion = completions[i];
                if (!completion.isSuccess())
                {
                    throw new IllegalStateException("READ over " + qps.length + " queue pairs failed: " + completion);
                }
                if (posted < count)
                {
                    post(requests[(int)completion.wrId()]);
                    posted++;
                }
            }
            completed += polled;
            lastProgress = System.nanoTime();
            idleStrategy.reset();
        }
        return System.nanoTime() - start;
    }

    private void post(final SendWorkRequest request)
    {
        targets.aim(request);
        qps[nextQp].postSend(request);
        if (++nextQp == qps.length)
        {
            nextQp = 0;
        }
    }

    private void checkTimeout(final long since, final int completed, final int count)
    {
        final long waited = System.nanoTime() - since;
        if (waited > Waiting.TIMEOUT_NANOS)
        {
            throw new IllegalStateException("no READ completed for " + TimeUnit.NANOSECONDS.toMillis(waited) +
                " ms over " + qps.length + " queue pairs: " + completed + " of " + count + " completed");
        }
    }
}

package io.dkv.load.bench.verbs;

import io.dkv.load.bench.RemoteTargets;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Runs one-sided requests on a connected RC queue pair, reusing preallocated requests and
 * completions so the timed loops allocate nothing. Latency: one request in flight, posted signaled,
 * the CQ polled in a loop until it completes, idling as the {@link IdleStrategy} says between empty
 * polls. Throughput: a window of signaled requests in flight; the completions of each poll are
 * replaced by one doorbell, a chained post of as many requests.
 */
final class VerbsProbe implements Probe
{
    /** A request that has not completed by then will not: the provider is broken or the peer gone. */
    static final long COMPLETION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final int SPINS_PER_CLOCK_CHECK = 1 << 12;

    private final String subject;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final IdleStrategy idleStrategy;
    private final RemoteTargets targets;
    private final SendWorkRequest[] requests;
    private final WorkCompletion[] completions;

    /**
     * @param subject what is measured, for error messages.
     * @param window  requests in flight during {@link #runBatch}; request {@code i} uses slot {@code i}
     *                of {@code local}, {@code slotStride} bytes apart.
     */
    VerbsProbe(
        final String subject,
        final QueuePair qp,
        final CompletionQueue cq,
        final IdleStrategy idleStrategy,
        final MemoryRegion local,
        final int slotStride,
        final MemoryRegion remote,
        final Operation operation,
        final int size,
        final int window,
        final long[] offsets)
    {
        if ((long)slotStride * window > local.length() || size > slotStride)
        {
            throw new IllegalArgumentException(window + " slots of " + slotStride + " bytes for " + size +
                "-byte requests do not fit a local region of " + local.length() + " bytes");
        }
        this.subject = subject;
        this.qp = qp;
        this.cq = cq;
        this.idleStrategy = idleStrategy;
        this.targets = new RemoteTargets(remote, offsets);
        this.requests = new SendWorkRequest[window];
        this.completions = new WorkCompletion[window];
        for (int i = 0; i < window; i++)
        {
            requests[i] = new SendWorkRequest(1)
                .wrId(i)
                .opcode(operation.opcode())
                .sendFlags(SendFlags.SIGNALED)
                .local(local, (long)i * slotStride, size)
                // compare 0 and swap 0 on a zeroed region: every CAS succeeds and leaves the word as it was
                .compareAdd(0)
                .swap(0);
            completions[i] = new WorkCompletion();
        }
    }

    public void runTimed(final int count, final Histogram latencies)
    {
        final SendWorkRequest request = requests[0];
        final long highest = latencies.getHighestTrackableValue();
        request.next(null);
        for (int i = 0; i < count; i++)
        {
            targets.aim(request);
            final long start = System.nanoTime();
            qp.postSend(request);
            awaitOne(start);
            latencies.recordValue(Math.min(System.nanoTime() - start, highest));
        }
    }

    public long runBatch(final int count)
    {
        final int window = Math.min(requests.length, count);
        final long start = System.nanoTime();
        postChain(0, window, window);
        int posted = window;
        int completed = 0;
        long lastProgress = start;
        int idleSpins = 0;
        while (completed < count)
        {
            final int polled = cq.poll(completions);
            if (polled == 0)
            {
                if (++idleSpins == SPINS_PER_CLOCK_CHECK)
                {
                    idleSpins = 0;
                    checkTimeout(lastProgress);
                }
                idleStrategy.idle();
                continue;
            }
            for (int i = 0; i < polled; i++)
            {
                check(completions[i], (completed + i) % window);
            }
            completed += polled;
            final int refill = Math.min(polled, count - posted);
            if (refill > 0)
            {
                postChain(posted, refill, window);
                posted += refill;
            }
            lastProgress = System.nanoTime();
            idleSpins = 0;
        }
        return System.nanoTime() - start;
    }

    /**
     * Post requests {@code first .. first + count - 1} (slots modulo the window) as one chain.
     */
    private void postChain(final int first, final int count, final int window)
    {
        SendWorkRequest previous = null;
        for (int i = first + count - 1; i >= first; i--)
        {
            final SendWorkRequest request = requests[i % window];
            targets.aim(request).next(previous);
            previous = request;
        }
        qp.postSend(previous);
    }

    private void awaitOne(final long start)
    {
        int idleSpins = 0;
        while (cq.poll(completions, 1) == 0)
        {
            if (++idleSpins == SPINS_PER_CLOCK_CHECK)
            {
                idleSpins = 0;
                checkTimeout(start);
            }
            idleStrategy.idle();
        }
        check(completions[0], 0);
    }

    private void check(final WorkCompletion completion, final long expectedWrId)
    {
        if (!completion.isSuccess() || completion.wrId() != expectedWrId)
        {
            throw new IllegalStateException(subject + ": expected a successful completion of request " + expectedWrId +
                ", got " + completion + " on " + qp);
        }
    }

    private void checkTimeout(final long since)
    {
        final long waited = System.nanoTime() - since;
        if (waited > COMPLETION_TIMEOUT_NANOS)
        {
            throw new IllegalStateException(subject + ": no completion for " + TimeUnit.NANOSECONDS.toMillis(waited) +
                " ms on " + qp);
        }
    }
}

package io.dkv.raas.driver;

import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A physical queue pair of the pool, shared by many logical connections. The driver never lets
 * more requests be outstanding than its send queue holds; requests beyond that, or while the queue
 * pair is being recycled after an error, wait in its deferred queue in order.
 */
final class PooledQp
{
    private static final VarHandle POSTED;
    private static final VarHandle COMPLETED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            POSTED = lookup.findVarHandle(PooledQp.class, "posted", long.class);
            COMPLETED = lookup.findVarHandle(PooledQp.class, "completed", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    final QpType type;
    final int depth;
    /**
     * Requests posted, written only by the submitter, and completed, written only by the poller: one
     * writer each, so neither needs an atomic read-modify-write on the request path.
     */
    private volatile long posted;
    private volatile long completed;
    final SlotQueue deferred;
    QueuePair qp;
    /** The peer of an RC queue pair, and its queue pair number. */
    NodeRoute peer;
    int peerQpn;
    volatile boolean broken;
    /** An RC queue pair taken out of use (idle, or its peer closed it): closed once nothing is outstanding. */
    volatile boolean retired;
    /** This end asked for the RC queue pair (it demotes it when idle; the other end waits to be told). */
    boolean initiatedHere;
    /** The peer has closed its end (or asked this end to close): this end may close once drained. */
    volatile boolean closeReady;
    /** Tell the peer when this end closes (it asked for the close and waits for the answer). */
    volatile boolean answerClosed;
    long retiredAtMillis;
    int recycles;
    long lastUsedMillis;
    /** Housekeeping's watch for a stall: owned by its thread, fed the counts above. */
    final StallDetector stall;
    /** Forced to ERROR as stalled: the first request flushed is the one it stalled on, and fails. */
    volatile boolean stalled;
    /**
     * Broken by the transport (a stall, retries exceeded), not by a responder's answer: requests flushed behind the
     * failed one may have been executed with their answers lost, so an atomic among them must not go again.
     */
    volatile boolean outcomeUnknown;
    /** The doorbell batch being built by the submitter. */
    int batchCount;
    io.dkv.verbs.SendWorkRequest batchHead;
    io.dkv.verbs.SendWorkRequest batchTail;

    PooledQp(final QueuePair qp, final int depth, final int deferredCapacity, final long stallMillis)
    {
        this.stall = new StallDetector(stallMillis);
        this.qp = qp;
        this.type = qp.type();
        this.depth = depth;
        this.deferred = new SlotQueue(deferredCapacity);
    }

    /** @return requests posted and not yet completed. */
    int outstanding()
    {
        final long completedNow = completed;
        return (int)(posted - completedNow);
    }

    /** Submitter only. @return requests that were outstanding before these. */
    int addPosted(final int count)
    {
        final int before = outstanding();
        POSTED.setRelease(this, posted + count);
        return before;
    }

    /** Submitter only: a request counted as posted never reached the queue pair. */
    void unpost()
    {
        POSTED.setRelease(this, posted - 1);
    }

    /** @return completions so far, of any status: a count that only grows. */
    long completedCount()
    {
        return completed;
    }

    /** Poller only. */
    void addCompleted()
    {
        COMPLETED.setRelease(this, completed + 1);
    }

    boolean hasCredit(final int batched)
    {
        return outstanding() + batched < depth;
    }

    public String toString()
    {
        return String.format("%s qp 0x%x (outstanding %d of %d%s)",
            type, qp.qpNum(), outstanding(), depth, broken ? ", broken" : "");
    }
}

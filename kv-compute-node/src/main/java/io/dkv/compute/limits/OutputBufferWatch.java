package io.dkv.compute.limits;

import io.netty.util.concurrent.EventExecutor;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * One connection's pending replies against its class's output buffer limit ({@link ClientLimits}), as redis's
 * checkClientOutputBufferLimits: past the hard bound the connection is closed at once; above the soft bound for longer
 * than its seconds on end it is closed then, traffic or none (a check is scheduled on the connection's loop when it
 * first passes the soft bound, so a subscriber nobody publishes to any more is still closed). The pending bytes are
 * the channel's outbound buffer's, or the messages queued to a subscriber when more (they are in flight to the loop).
 * Checked from any thread: the connection's loop after its writes, publishers' threads as they deliver; the close runs
 * once, on the loop.
 */
public final class OutputBufferWatch
{
    private static final long UNDER = Long.MIN_VALUE;
    /** A scheduled recheck runs this long after the soft period would end, so that it ends by then. */
    private static final long RECHECK_SLACK_MS = 20;

    private final ClientLimits limits;
    private final NanoClock clock;
    private final EventExecutor loop;
    private final LongSupplier outboundBytes;
    private final Runnable closeAtLimit;
    private final Runnable evict;
    private final AtomicLong softSince = new AtomicLong(UNDER);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean recheckScheduled = new AtomicBoolean();
    private volatile AtomicLong queuedMessages;
    private volatile boolean subscribed;
    private volatile long bytesAtClose;

    /**
     * @param limits        the node's, read at each check (CONFIG SET changes them).
     * @param clock         the node's.
     * @param loop          the connection's event loop: where the closes and the scheduled rechecks run.
     * @param outboundBytes the connection's pending reply bytes; read on any thread.
     * @param closeAtLimit  closes the connection at its limit, on the loop.
     * @param evict         closes the connection for the node's clients' memory ({@link ClientsMemory}), on the loop.
     */
    public OutputBufferWatch(final ClientLimits limits, final NanoClock clock, final EventExecutor loop,
        final LongSupplier outboundBytes, final Runnable closeAtLimit, final Runnable evict)
    {
        this.limits = limits;
        this.clock = clock;
        this.loop = loop;
        this.outboundBytes = outboundBytes;
        this.closeAtLimit = closeAtLimit;
        this.evict = evict;
    }

    /** @param subscribed whether the connection is in subscribed mode now: its class is pubsub, else normal. */
    public void subscribed(final boolean subscribed)
    {
        this.subscribed = subscribed;
    }

    /** @param queuedMessages a subscriber's message bytes delivered and not yet written to its socket. */
    public void queuedMessages(final AtomicLong queuedMessages)
    {
        this.queuedMessages = queuedMessages;
    }

    /** @return the bytes the connection holds pending: its outbound buffer's, or its queued messages' when more. */
    public long pendingBytes()
    {
        final AtomicLong messages = queuedMessages;
        final long outbound = outboundBytes.getAsLong();
        return messages == null ? outbound : Math.max(outbound, messages.get());
    }

    /** @return the pending bytes that closed it, once it was closed at its limit or evicted. */
    public long bytesAtClose()
    {
        return bytesAtClose;
    }

    /** @return true once it was closed at its limit or evicted. */
    public boolean closed()
    {
        return closed.get();
    }

    /** @return true when the connection is (now being) closed at its limit; on any thread. */
    public boolean check()
    {
        return check(pendingBytes());
    }

    /**
     * @param pendingBytes what the connection holds pending now.
     * @return true when the connection is (now being) closed at its limit; on any thread.
     */
    public boolean check(final long pendingBytes)
    {
        if (closed.get())
        {
            return true;
        }
        final OutputBufferLimit limit = limits.output(subscribed);
        boolean over = limit.overHard(pendingBytes);
        if (!over && limit.overSoft(pendingBytes))
        {
            final long now = clock.nanoTime();
            final long since = softSince.get();
            if (since == UNDER)
            {
                if (softSince.compareAndSet(UNDER, now) && recheckScheduled.compareAndSet(false, true))
                {
                    loop.schedule(this::recheck, TimeUnit.SECONDS.toMillis(limit.softSeconds()) + RECHECK_SLACK_MS,
                        TimeUnit.MILLISECONDS);
                }
            }
            else
            {
                over = now - since > TimeUnit.SECONDS.toNanos(limit.softSeconds());
            }
        }
        else if (!over && softSince.get() != UNDER)
        {
            softSince.set(UNDER);
        }
        if (over)
        {
            close(pendingBytes, closeAtLimit);
        }
        return over;
    }

    /** @return true when the soft period runs: a drained write should check again so that it ends. */
    public boolean aboveSoft()
    {
        return softSince.get() != UNDER;
    }

    /** Close the connection for the node's clients' memory, on any thread. */
    void evict(final long pendingBytes)
    {
        close(pendingBytes, evict);
    }

    private void recheck()
    {
        recheckScheduled.set(false);
        if (!check() && aboveSoft() && recheckScheduled.compareAndSet(false, true))
        {
            // still above the soft bound, its period not over (it restarted since): look again when it would be
            loop.schedule(this::recheck, TimeUnit.SECONDS.toMillis(limits.output(subscribed).softSeconds()) +
                RECHECK_SLACK_MS, TimeUnit.MILLISECONDS);
        }
    }

    private void close(final long pendingBytes, final Runnable how)
    {
        if (closed.compareAndSet(false, true))
        {
            bytesAtClose = pendingBytes;
            if (loop.inEventLoop())
            {
                how.run();
            }
            else
            {
                loop.execute(how);
            }
        }
    }
}

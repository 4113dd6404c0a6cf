package io.dkv.compute.command;

import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One kind of event about peers (a failed AUTH, a connection closed at its output limit), logged at most once an
 * interval whatever the rate, each line naming the latest event's peer and how many were not logged since the last
 * line: a peer that makes thousands a second costs a line every few seconds, not a line each. Any thread may call it.
 */
public final class RateLimitedLog
{
    /** Lines of one kind at most one per this long. */
    public static final long INTERVAL_MS = 10_000;

    private final String what;
    private final Consumer<String> sink;
    private final NanoClock clock;
    private final long intervalNanos;
    private final AtomicLong nextLineNanos;
    private final AtomicLong unlogged = new AtomicLong();

    /**
     * @param what  the event, as the line begins with it (e.g. "failed AUTH").
     * @param sink  where lines go.
     * @param clock what the interval is measured by.
     */
    public RateLimitedLog(final String what, final Consumer<String> sink, final NanoClock clock)
    {
        this.what = what;
        this.sink = sink;
        this.clock = clock;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS);
        this.nextLineNanos = new AtomicLong(clock.nanoTime());
    }

    /**
     * One event: a line now if none was written within the interval, else counted for the next.
     *
     * @param peer   whose it was (its remote address).
     * @param detail what else the line says of it; may be empty.
     */
    public void event(final Object peer, final String detail)
    {
        final long now = clock.nanoTime();
        final long next = nextLineNanos.get();
        if (now - next < 0 || !nextLineNanos.compareAndSet(next, now + intervalNanos))
        {
            unlogged.incrementAndGet();
            return;
        }
        final long more = unlogged.getAndSet(0);
        sink.accept("dkv compute node: " + what + " from " + peer + (detail.isEmpty() ? "" : " (" + detail + ")") +
            (more == 0 ? "" : "; " + more + " more since the last such line") + "; at most one such line per " +
            INTERVAL_MS / 1000 + " s");
    }
}

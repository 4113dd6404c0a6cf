package io.dkv.raas.driver;

import org.agrona.concurrent.NanoClock;

/**
 * The clock of the driver's own timers (a stalled queue pair's recycling, unused inbound connections, RC
 * promotion windows, back-offs and retirement): milliseconds since the driver started on the context's monotonic
 * clock, read once a housekeeping turn and cached for the request paths.
 *
 * <p>Monotonic because these timers measure spans: on the wall clock a step forward (an NTP correction, a VM
 * resumed, a clock fault) fired each of them at once (an initiator recycled with its requests failed, connections
 * reclaimed while in use) and a step back held them until the wall clock caught up (a stalled initiator left
 * stalled for as long as the step). Counted from the start so that every reading is at least 0: the timers' fields
 * start at 0 and mean "long enough ago", whatever origin the monotonic clock has.
 */
final class DriverMillis
{
    private final NanoClock nanoClock;
    private final long originNanos;
    private volatile long cachedMillis;

    DriverMillis(final NanoClock nanoClock)
    {
        this.nanoClock = nanoClock;
        this.originNanos = nanoClock.nanoTime();
    }

    /** @return the time housekeeping last read, for the request paths: no clock is read. */
    long time()
    {
        return cachedMillis;
    }

    /** Read the clock, cache and return it: housekeeping's turn. */
    long update()
    {
        final long now = read();
        cachedMillis = now;
        return now;
    }

    /** @return the time now, read from the clock, for waits outside housekeeping; the cache is left as it is. */
    long read()
    {
        return (nanoClock.nanoTime() - originNanos) / 1_000_000L;
    }
}

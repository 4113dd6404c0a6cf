package io.dkv.agent;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread idles while it waits for another process to act: a message from a peer, a peer's connect, the
 * driver's answer to a command. Such a wait may last milliseconds (a memory node's answer once a key is on disk),
 * and a thread that only spins and yields through it takes a core from the process it waits for on a small host
 * (with two cores, a standalone driver spent a whole core so while its clients waited for fsyncs). It spins, then
 * yields, then parks from {@link #MIN_PARK_NS} doubling to {@link #MAX_PARK_NS}: an answer within the first tens of
 * microseconds is seen as soon as with spinning alone, a later one at most {@link #MAX_PARK_NS} late.
 * <p>
 * Static and stateless (the caller counts its turns), so that waiting allocates nothing.
 */
public final class Waits
{
    public static final int SPINS = 64;
    public static final int YIELDS = 64;
    public static final long MIN_PARK_NS = 1_000;
    public static final long MAX_PARK_NS = 100_000;
    /** Doublings from the shortest park to the longest: 1 µs << 7 = 128 µs, capped at 100 µs. */
    private static final int MAX_SHIFT = 7;

    private Waits()
    {
    }

    /** @param turns idle turns so far in this wait, counted from 1. */
    public static void idle(final int turns)
    {
        if (turns <= SPINS)
        {
            Thread.onSpinWait();
        }
        else if (turns <= SPINS + YIELDS)
        {
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(parkNanos(turns - SPINS - YIELDS));
        }
    }

    /** @return how long the {@code parks}-th park of a wait lasts: {@link #MIN_PARK_NS} doubling to the most. */
    public static long parkNanos(final int parks)
    {
        return Math.min(MAX_PARK_NS, MIN_PARK_NS << Math.min(MAX_SHIFT, Math.max(0, parks)));
    }

    /** @return true when the wait is past its spins and yields, so that a deadline should be looked at each turn. */
    public static boolean parking(final int turns)
    {
        return turns > SPINS + YIELDS;
    }
}

package io.dkv.clock;

/**
 * Layout of a clock control file: how far one process's clocks are from true time. One writer (the harness's
 * nemesis) changes it under a sequence lock while the process reads it on every clock call.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     sequence: odd while being written         |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     wall offset, ns                           |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     rate (IEEE 754 double bits)               |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     anchor: true monotonic time, ns           |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     skew at the anchor, ns                    |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     magic "DKVCLOCK"                          |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 * At true monotonic time t (System.nanoTime, CLOCK_MONOTONIC: the same in every process of a host) the process's
 * clocks have gained {@code skew(t) = skewAtAnchor + (t - anchor) * (rate - 1)}: its monotonic clock reads
 * {@code t + skew(t)} (a rate other than 1 is an oscillator running fast or slow; it never steps) and its wall clock
 * {@code wall + wallOffset + skew(t)} (a wall offset is a step, as an operator or NTP makes).
 */
public final class ClockControlDescriptor
{
    public static final int SEQUENCE_OFFSET = 0;
    public static final int WALL_OFFSET_OFFSET = 8;
    public static final int RATE_OFFSET = 16;
    public static final int ANCHOR_OFFSET = 24;
    public static final int SKEW_AT_ANCHOR_OFFSET = 32;
    public static final int MAGIC_OFFSET = 40;
    public static final int LENGTH = 64;
    /** "DKVCLOCK": a file of another kind is refused rather than read as skew. */
    public static final long MAGIC = 0x444b56434c4f434bL;

    private ClockControlDescriptor()
    {
    }
}

package io.dkv.raas.stream;

/**
 * Phase numbers of EXS: both ends start in phase 1; odd phases are indirect (bytes through the
 * receiver's stream buffer), even phases direct (bytes into buffers the receiver advertised); each
 * switch moves to the next phase, so a later phase always has the higher number.
 */
final class StreamPhases
{
    static final int FIRST = 1;

    private StreamPhases()
    {
    }

    static boolean isDirect(final int phase)
    {
        return (phase & 1) == 0;
    }

    static int next(final int phase)
    {
        return phase + 1;
    }
}

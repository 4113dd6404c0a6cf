package io.dkv.load.check.harness;

/**
 * What the checkers concluded about a history, and the exit code {@code dkv check} gives for it.
 */
public enum Verdict
{
    VALID(0),
    INVALID(3),
    /** The checker ran out of its time budget (or memory) before it could decide. */
    UNKNOWN(4);

    private final int exitCode;

    Verdict(final int exitCode)
    {
        this.exitCode = exitCode;
    }

    public int exitCode()
    {
        return exitCode;
    }
}

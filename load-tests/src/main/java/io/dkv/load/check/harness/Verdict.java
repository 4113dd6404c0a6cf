package io.dkv.load.check.harness;

/**
 * What the checkers concluded about a history, and the exit code {@code dkv check} gives for it.
 */
public enum Verdict
{
    VALID(0),
    INVALID(3),
    /** The checker ran out of its time budget (or memory) before it could decide. */
    UNKNOWN(4),
    /**
     * The operations are consistent, but once every fault was healed some client could not read some key by the
     * recovery phase's deadline: the store did not come back.
     */
    UNRECOVERED(5);

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

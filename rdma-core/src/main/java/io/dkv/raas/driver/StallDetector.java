package io.dkv.raas.driver;

/**
 * Tells when a shared queue pair has stalled: requests outstanding, and none completed for the stall time, as
 * housekeeping itself watched it. Owned by housekeeping's thread; the counts it is given are the queue pair's.
 *
 * <p>Only what housekeeping saw counts. A queue pair found idle or progressing starts a new watch at that check, so a
 * request posted to a queue pair idle for minutes is timed from the last check before it, not from the last
 * completion (timing it from a time the submitter wrote raced with the check: a fresh request could be taken for a
 * stall, its queue pair recycled and the request failed UNREACHABLE). A stall must also span a number of checks, so
 * that a process that was paused or starved of CPU (no check ran meanwhile, nor did its poller) looks again before it
 * recycles anything: the completions it has not polled yet are not a peer's silence.
 */
final class StallDetector
{
    /** Checks (about one a millisecond while housekeeping runs) a stall must span besides the stall time. */
    static final int MIN_QUIET_CHECKS = 50;

    private final long stallMillis;
    private final int minQuietChecks;
    private long seenCompleted = -1;
    private long quietSinceMillis;
    private int quietChecks;

    StallDetector(final long stallMillis)
    {
        this(stallMillis, MIN_QUIET_CHECKS);
    }

    StallDetector(final long stallMillis, final int minQuietChecks)
    {
        this.stallMillis = stallMillis;
        this.minQuietChecks = minQuietChecks;
    }

    /**
     * One check.
     *
     * @param nowMillis   the time of this check.
     * @param outstanding requests posted and not completed.
     * @param completed   completions so far (any status): a count that only grows.
     * @return whether the queue pair has stalled.
     */
    boolean check(final long nowMillis, final int outstanding, final long completed)
    {
        if (outstanding <= 0 || completed != seenCompleted)
        {
            seenCompleted = completed;
            quietSinceMillis = nowMillis;
            quietChecks = 0;
            return false;
        }
        quietChecks++;
        return nowMillis - quietSinceMillis > stallMillis && quietChecks >= minQuietChecks;
    }

    /** Forget the current watch: the next check starts a new one. */
    void restart()
    {
        seenCompleted = -1;
    }

    /** @return how long the current watch has seen no completion. */
    long quietMillis(final long nowMillis)
    {
        return nowMillis - quietSinceMillis;
    }

    /** @return checks of the current watch that saw no completion. */
    int quietChecks()
    {
        return quietChecks;
    }
}

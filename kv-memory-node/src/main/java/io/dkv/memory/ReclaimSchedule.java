package io.dkv.memory;

/**
 * When the node walks its index for retired chunks no slot points into ({@link HeapChunks#reclaim}): an interval
 * apart, and, while walks free nothing and no chunk was retired or refused since the last, twice as long each time,
 * up to {@link #MAX_BACKOFF} intervals. A node that loaded its keys from disk holds their chunks retired and referenced
 * until clients write those keys again: a walk of 10^6 slots a second found nothing and took a tenth of a core beside
 * the node's own refill. The first chunk retired or refused brings the interval back.
 */
final class ReclaimSchedule
{
    /** The longest wait between walks, in intervals. */
    static final int MAX_BACKOFF = 8;

    private final long intervalNanos;
    private int backoff = 1;
    private long nextNanos;
    private long lastNanos;
    private long retirementsAtWalk;
    private long refusalsAtWalk;

    ReclaimSchedule(final long intervalNanos, final long nowNanos)
    {
        this.intervalNanos = intervalNanos;
        this.lastNanos = nowNanos;
        this.nextNanos = nowNanos;
    }

    /**
     * @param retirements chunks retired since the node started.
     * @param refusals    chunk requests refused since the node started (its heap full).
     * @return true when a walk is due now.
     */
    boolean due(final long nowNanos, final long retirements, final long refusals)
    {
        if (backoff > 1 && (retirements != retirementsAtWalk || refusals != refusalsAtWalk))
        {
            backoff = 1;
            nextNanos = Math.min(nextNanos, lastNanos + intervalNanos);
        }
        return nowNanos - nextNanos >= 0;
    }

    /** A walk ended, having quarantined {@code freed} chunks. */
    void walked(final long nowNanos, final int freed, final long retirements, final long refusals)
    {
        final boolean idle = freed == 0 && retirements == retirementsAtWalk && refusals == refusalsAtWalk;
        backoff = idle ? Math.min(backoff * 2, MAX_BACKOFF) : 1;
        retirementsAtWalk = retirements;
        refusalsAtWalk = refusals;
        lastNanos = nowNanos;
        nextNanos = nowNanos + intervalNanos * backoff;
    }

    /** @return the wait after the last walk, in nanoseconds. */
    long waitNanos()
    {
        return intervalNanos * backoff;
    }
}

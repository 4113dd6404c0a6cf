package io.dkv.memory;

/**
 * How the node's writes to disk go: keys written, and how far behind the requests they were.
 * Written by the request server's thread, read by anyone.
 */
public final class PersistStats
{
    /** Waits for an fsync counted per millisecond up to this; longer ones in the last count. */
    private static final int LAG_LIMIT_MS = 4096;

    /** Per millisecond: fsyncs whose oldest write had waited that long (the writer's thread's alone). */
    private final long[] lagCounts = new long[LAG_LIMIT_MS + 1];
    private long lagSamples;
    private volatile long keysPersisted;
    private volatile long batches;
    private volatile long lastBatchNanos;
    private volatile long maxBatchNanos;
    private volatile long fsyncs;
    private volatile long fsyncFailures;
    private volatile long lastFsyncEpochMs;
    private volatile boolean lastFsyncOk = true;
    private volatile long lastUnsyncedNanos;
    private volatile long maxUnsyncedNanos;
    /** When the oldest write to disk not fsynced yet was made (nanoClock), or 0: every write is fsynced. */
    private volatile long unsyncedSinceNanos;

    void onBatch(final int keys, final long nanos)
    {
        keysPersisted = keysPersisted + keys;
        batches = batches + 1;
        lastBatchNanos = nanos;
        if (nanos > maxBatchNanos)
        {
            maxBatchNanos = nanos;
        }
    }

    void onUnsynced(final long sinceNanos)
    {
        unsyncedSinceNanos = sinceNanos;
    }

    /**
     * @param epochMs      when it ended, by the node's epoch clock.
     * @param waitedNanos  how long the oldest write it covered waited for it (0 for a batch fsynced as written).
     * @param ok           false when it failed.
     */
    void onFsync(final long epochMs, final long waitedNanos, final boolean ok)
    {
        if (ok)
        {
            lagCounts[(int)Math.min(LAG_LIMIT_MS, waitedNanos / 1_000_000)]++;
            lagSamples++;
            fsyncs = fsyncs + 1;
            unsyncedSinceNanos = 0;
            lastUnsyncedNanos = waitedNanos;
            if (waitedNanos > maxUnsyncedNanos)
            {
                maxUnsyncedNanos = waitedNanos;
            }
        }
        else
        {
            fsyncFailures = fsyncFailures + 1;
        }
        lastFsyncEpochMs = epochMs;
        lastFsyncOk = ok;
    }

    /**
     * On the writer's thread only.
     *
     * @return the p99 of how long the oldest write each fsync covered had waited for it, in milliseconds (the lag
     * of durability async, appendfsync everysec); 0 before any fsync; {@value #LAG_LIMIT_MS} or more counts as that.
     */
    int lagP99Ms()
    {
        final long rank = (long)Math.ceil(lagSamples * 0.99);
        long seen = 0;
        for (int ms = 0; ms <= LAG_LIMIT_MS && rank > 0; ms++)
        {
            seen += lagCounts[ms];
            if (seen >= rank)
            {
                return ms;
            }
        }
        return 0;
    }

    /** @return fsyncs of the key store (a batch written with one, or the log's own), since the node started. */
    public long fsyncs()
    {
        return fsyncs;
    }

    public long fsyncFailures()
    {
        return fsyncFailures;
    }

    /** @return when the last fsync ended (epoch milliseconds), or 0 for none yet. */
    public long lastFsyncEpochMs()
    {
        return lastFsyncEpochMs;
    }

    /** @return false when the last fsync failed (its error is logged): what was written since may not be on disk. */
    public boolean lastFsyncOk()
    {
        return lastFsyncOk;
    }

    /** @return when the oldest write not fsynced yet was made (the node's nano clock), or 0 when there is none. */
    public long unsyncedSinceNanos()
    {
        return unsyncedSinceNanos;
    }

    /** @return how long the oldest write the last log fsync covered had waited for it: everysec's lag, at most. */
    public long lastUnsyncedNanos()
    {
        return lastUnsyncedNanos;
    }

    public long maxUnsyncedNanos()
    {
        return maxUnsyncedNanos;
    }

    /** @return keys written to disk since the node started (a key written twice counts twice). */
    public long keysPersisted()
    {
        return keysPersisted;
    }

    public long batches()
    {
        return batches;
    }

    /**
     * @return how long the last batch took from the start of the turn that gathered it to its
     * write: how far the disk was behind the index then, for durability async.
     */
    public long lastLagNanos()
    {
        return lastBatchNanos;
    }

    public long maxLagNanos()
    {
        return maxBatchNanos;
    }
}

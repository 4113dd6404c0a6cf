package io.dkv.memory;

/**
 * How the node's writes to disk go: keys written, and how far behind the requests they were.
 * Written by the request server's thread, read by anyone.
 */
public final class PersistStats
{
    private volatile long keysPersisted;
    private volatile long batches;
    private volatile long lastBatchNanos;
    private volatile long maxBatchNanos;

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

package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * Drops the versions the cluster's durable epoch D has passed (kv-memory-node/README.md, "Async across nodes"): of
 * each key, every version older than its newest at or below D, which stands for them at any epoch a recovery could
 * come back to (D is at most the least durable epoch any member kept); of that epoch's, those its last replaced; and
 * the key's versions all, when that last is a delete and nothing is newer. D is what clients write into the index
 * header ({@code IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET}), the greatest read so far: a client's stale, lower D
 * drops less, never more. A pass reads the versions in slices on the request server's thread, so that no turn waits
 * long for it, once an interval and only when D moved since the last; its deletes go without an fsync of their own
 * (one lost to a crash only leaves a version the next pass drops).
 */
final class VersionSweep
{
    /** Versions a turn reads at most. */
    static final int SLICE = 4096;

    private final KeyStore store;
    private final LocalIndex index;
    private final long intervalNanos;
    private long nextNanos;
    /** The greatest D read from the header. */
    private long clusterDurable;
    /** The D of the pass under way, and of the last one that ended. */
    private long passEpoch;
    private long lastPassEpoch;
    private boolean running;
    /** The key whose versions are being read, and theirs so far, in row order (epoch, then write id). */
    private byte[] key;
    private final KeyVersionRun run = new KeyVersionRun();
    private WriteBatch drops;
    private final KeyStore.VersionRowVisitor row = this::row;
    /** Written here only; read by anyone who asks. */
    private volatile long versionsDropped;
    private volatile long passes;

    VersionSweep(final KeyStore store, final LocalIndex index, final long intervalNanos, final long nowNanos)
    {
        this.store = store;
        this.index = index;
        this.intervalNanos = intervalNanos;
        this.nextNanos = nowNanos + intervalNanos;
    }

    /**
     * A slice of the pass under way, or a new pass when the interval is over and D moved.
     *
     * @return versions read.
     * @throws IllegalStateException when the deletes cannot be written (the store is then opened again before its
     *                               next write, the pass given up).
     */
    int sweep(final long nowNanos)
    {
        if (!running)
        {
            if (nowNanos - nextNanos < 0)
            {
                return 0;
            }
            nextNanos = nowNanos + intervalNanos;
            clusterDurable = Math.max(clusterDurable, index.clusterDurableEpoch());
            if (clusterDurable <= lastPassEpoch)
            {
                return 0;
            }
            passEpoch = clusterDurable;
            store.writeClusterDurableEpoch(passEpoch);
            store.startVersionPass();
            running = true;
            key = null;
        }
        try (WriteBatch batch = new WriteBatch())
        {
            drops = batch;
            final int read = store.nextVersions(SLICE, row);
            if (read < SLICE)
            {
                decide();
                key = null;
                store.endVersionPass();
                running = false;
                lastPassEpoch = passEpoch;
                passes++;
            }
            if (batch.count() > 0)
            {
                final int count = batch.count();
                store.write(batch, false);
                versionsDropped += count;
            }
            return read;
        }
        catch (final IllegalStateException ex)
        {
            store.endVersionPass();
            running = false;
            key = null;
            throw ex;
        }
        finally
        {
            drops = null;
        }
    }

    /** @return versions dropped since the node started. */
    long versionsDropped()
    {
        return versionsDropped;
    }

    /** @return passes over every version that ended, since the node started. */
    long passes()
    {
        return passes;
    }

    /** @return the greatest cluster durable epoch read from the index header so far. */
    long clusterDurableEpoch()
    {
        return clusterDurable;
    }

    private void row(final byte[] rowKey, final long epoch, final long writeId, final long replaced,
        final long expireAt)
    {
        if (key != null && !Arrays.equals(key, rowKey))
        {
            decide();
            key = null;
        }
        if (key == null)
        {
            key = rowKey;
            run.clear();
        }
        run.add(epoch, writeId, replaced, expireAt, null);
    }

    /** The key's versions are all read: drop what its newest at or below D stands for. */
    private void decide()
    {
        if (key == null)
        {
            return;
        }
        final int count = run.size();
        final long newest = run.newestAtOrBelow(passEpoch);
        if (newest < 0)
        {
            return;
        }
        boolean lastIsDelete = true;
        boolean newer = false;
        for (int i = 0; i < count; i++)
        {
            final long epoch = run.epoch(i);
            if (epoch > newest)
            {
                newer = true;
            }
            else if (epoch < newest || run.replacedInEpoch(i, newest))
            {
                drop(i);
            }
            else
            {
                lastIsDelete &= run.expireAt(i) == KvBlockLayout.TOMBSTONE;
            }
        }
        if (lastIsDelete && !newer)
        {
            for (int i = 0; i < count; i++)
            {
                if (run.epoch(i) == newest && !run.replacedInEpoch(i, newest))
                {
                    drop(i);
                }
            }
        }
    }

    private void drop(final int i)
    {
        try
        {
            store.dropVersion(drops, key, run.epoch(i), run.writeId(i));
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot drop a version in the key store: " + ex.getMessage(), ex);
        }
    }
}

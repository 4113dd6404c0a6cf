package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import io.dkv.format.PersistRingLayout;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Drops the versions the cluster's durable epoch D has passed (kv-memory-node/README.md, "Async across nodes"): of
 * each key, every version older than its newest at or below D, which stands for them at any epoch a recovery could
 * come back to (D is at most the least durable epoch any member kept); of that epoch's, those its last replaced; and
 * the key's versions all, when that last is a delete and nothing is newer. D is what clients write into the index
 * header ({@code IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET}), the greatest read so far: a client's stale, lower D
 * drops less, never more. A pass, once an interval and only when D moved since the last, first drops the version
 * log's closed segments whose every version is at or below D, oldest first. Of each key in such a segment it keeps
 * the versions of the key's newest epoch there, unless a version later in the log stands for them (newer and at or
 * below D, or naming them in their epoch): appended to the log again when the log holds a later version of the key
 * (above D: a cut between the two comes back to them), else carried into the key store's rows (a later write may
 * replace the key's row, long after the segment is gone); a delete with nothing after it needs neither. It makes
 * them durable, then deletes the segment. Then it passes over the versions kept as rows and drops those a newer row
 * stands for; its deletes go without an fsync of their own (one lost to a crash only leaves a version the next pass
 * drops). Everything in slices on the request server's thread, so that no turn waits long for it.
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
    /** Segments of the version log a pass drops together, at most: they and their keys are held in memory. */
    static final int GROUP = 4;

    /**
     * A version of its key's newest epoch in the segments being dropped, where it lies in their bytes, and the others
     * of that epoch.
     */
    private record Carried(long epoch, long writeId, long previous, long expireAt, byte[] bytes, int valueAt,
        int valueLength, Carried next)
    {
    }

    /** What the segments being dropped hold of one key, and what the log holds after them. */
    private static final class Newest
    {
        long epoch = -1;
        Carried versions;
        /** The log holds a version of the key after the segments. */
        boolean later;
        /** One of those stands for the segments' newest: newer and at or below D, or naming it in its epoch. */
        boolean stood;
    }

    private enum Step
    {
        READ, LATER, CARRY
    }

    /** The log's segments this pass drops, oldest first. */
    private final ArrayDeque<VersionLog.Segment> dropping = new ArrayDeque<>();
    /** Those being dropped now, oldest first; the next to read is {@link #reading}. */
    private final ArrayList<VersionLog.Segment> group = new ArrayList<>();
    private int reading;
    private Step step = Step.READ;
    private VersionLog.Cursor cursor;
    /** The segments after the group, as they were when it was read; the next to read is the first. */
    private final ArrayDeque<VersionLog.Segment> later = new ArrayDeque<>();
    /** Of the group: each key (its bytes where they lie) and its versions of its newest epoch there. */
    private final Map<ByteBuffer, Newest> newest = new HashMap<>();
    private Iterator<Map.Entry<ByteBuffer, Newest>> carrying;
    private long carried;
    private final VersionLog.RecordVisitor dropped = this::dropped;
    private final VersionLog.RecordVisitor afterwards = this::afterwards;
    /** The pass is over the versions carried into the key store (the log's segments are done). */
    private boolean rows;
    /** Rows were kept since the last pass over them (or the node started: rows of format 4, or of its last run). */
    private boolean rowsAdded = true;
    /** The key whose versions are being read, and theirs so far, in row order (epoch, then write id). */
    private byte[] key;
    private final KeyVersionRun run = new KeyVersionRun();
    private WriteBatch drops;
    private final KeyStore.VersionRowVisitor row = this::row;
    /** Written here only; read by anyone who asks. */
    private volatile long versionsDropped;
    private volatile long passes;
    private volatile long segmentsDropped;

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
            dropping.addAll(store.versionLog().droppable(passEpoch));
            rows = false;
            running = true;
            key = null;
        }
        if (!rows)
        {
            try
            {
                return sweepLog();
            }
            catch (final IllegalStateException | UncheckedIOException ex)
            {
                giveUp();
                throw ex instanceof IllegalStateException state ? state :
                    new IllegalStateException(ex.getMessage(), ex);
            }
        }
        try (WriteBatch batch = new WriteBatch())
        {
            drops = batch;
            final int read = store.nextVersions(SLICE, row);
            if (read < SLICE)
            {
                decide();
                key = null;
                endPass();
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
            giveUp();
            throw ex;
        }
        finally
        {
            drops = null;
        }
    }

    /** A slice of the log's segments: read, carried, or dropped. @return work done (at least 1). */
    private int sweepLog()
    {
        final VersionLog log = store.versionLog();
        switch (step)
        {
            case READ ->
            {
                if (cursor == null)
                {
                    if (group.isEmpty())
                    {
                        if (dropping.isEmpty())
                        {
                            if (!rowsAdded)
                            {
                                // every row is of an epoch at or below the D of the pass that kept it, which dropped
                                // what it stands for: a higher D drops nothing more
                                endPass();
                                return 1;
                            }
                            rowsAdded = false;
                            rows = true;
                            store.startVersionPass();
                            return 1;
                        }
                        while (group.size() < GROUP && !dropping.isEmpty())
                        {
                            group.add(dropping.pollFirst());
                        }
                        reading = 0;
                        newest.clear();
                    }
                    cursor = log.cursor(group.get(reading));
                }
                if (cursor.next(SLICE, dropped) < SLICE)
                {
                    cursor = null;
                    if (++reading == group.size())
                    {
                        later.clear();
                        later.addAll(log.segments());
                        for (int i = 0; i < group.size(); i++)
                        {
                            later.pollFirst();
                        }
                        step = Step.LATER;
                    }
                }
                return 1;
            }
            case LATER ->
            {
                if (cursor == null)
                {
                    if (later.isEmpty())
                    {
                        carrying = newest.entrySet().iterator();
                        carried = 0;
                        step = Step.CARRY;
                        return 1;
                    }
                    cursor = log.cursor(later.pollFirst());
                }
                if (cursor.next(SLICE, afterwards) < SLICE)
                {
                    cursor = null;
                }
                return 1;
            }
            default ->
            {
                return carry(log);
            }
        }
    }

    /**
     * A slice of the group's versions that nothing later stands for, carried: into the log when the log holds a
     * later version of the key (above D: a cut between would need this one), else into the key store's rows (the key's
     * row is this version now, and a later write replaces it). The segments are deleted once all are on disk.
     */
    private int carry(final VersionLog log)
    {
        int written = 0;
        try (WriteBatch batch = new WriteBatch())
        {
            while (written < SLICE && carrying.hasNext())
            {
                final Map.Entry<ByteBuffer, Newest> entry = carrying.next();
                final Newest key = entry.getValue();
                if (key.stood)
                {
                    // a later version at or below D stands for it
                    continue;
                }
                final ByteBuffer name = entry.getKey();
                final byte[] rowKey = Arrays.copyOfRange(name.array(), name.position(), name.limit());
                for (Carried version = key.versions; version != null; version = version.next())
                {
                    final byte[] value = Arrays.copyOfRange(version.bytes(), version.valueAt(),
                        version.valueAt() + version.valueLength());
                    if (key.later)
                    {
                        log.append(rowKey, version.epoch(), version.writeId(), version.previous(), version.expireAt(),
                            value);
                    }
                    else
                    {
                        // a delete too: a row an older carry left for the key must not outlive it
                        store.putVersion(batch, rowKey, version.epoch(), version.writeId(), version.previous(),
                            version.expireAt(), value);
                        rowsAdded = true;
                    }
                    written++;
                }
            }
            if (batch.count() > 0)
            {
                store.write(batch, false);
            }
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot carry a version into the key store: " + ex.getMessage(), ex);
        }
        carried += written;
        if (!carrying.hasNext())
        {
            // what the segments still had to give is on disk (the log's carried versions, the store's rows) before
            // they go
            store.syncWal();
            long versions = 0;
            for (final VersionLog.Segment segment : group)
            {
                log.dropOldest(segment);
                versions += segment.versions;
                segmentsDropped++;
            }
            versionsDropped += Math.max(0, versions - carried);
            group.clear();
            carrying = null;
            newest.clear();
            step = Step.READ;
        }
        return Math.max(written, 1);
    }

    /** @return whether the chain holds the version {@code writeId} already (carried before, and found twice). */
    private static boolean holds(final Carried versions, final long writeId)
    {
        for (Carried version = versions; version != null; version = version.next())
        {
            if (version.writeId() == writeId)
            {
                return true;
            }
        }
        return false;
    }

    /** A version of the group: of its key's newest epoch there, it may be carried. */
    private void dropped(final byte[] bytes, final int keyAt, final int keyLength, final int valueLength,
        final long epoch, final long writeId, final long previous, final long expireAt)
    {
        final Newest key = newest.computeIfAbsent(ByteBuffer.wrap(bytes, keyAt, keyLength), name -> new Newest());
        if (epoch > key.epoch)
        {
            key.epoch = epoch;
            key.versions = new Carried(epoch, writeId, previous, expireAt, bytes, keyAt + keyLength, valueLength, null);
        }
        else if (epoch == key.epoch && !holds(key.versions, writeId))
        {
            key.versions = new Carried(epoch, writeId, previous, expireAt, bytes, keyAt + keyLength, valueLength,
                key.versions);
        }
    }

    /** A version after the group: does it stand for the group's newest of the key? */
    private void afterwards(final byte[] bytes, final int keyAt, final int keyLength, final int valueLength,
        final long epoch, final long writeId, final long previous, final long expireAt)
    {
        final Newest key = newest.get(ByteBuffer.wrap(bytes, keyAt, keyLength));
        if (key == null)
        {
            return;
        }
        key.later = true;
        if (epoch > key.epoch && epoch <= passEpoch)
        {
            key.stood = true;
        }
        else if (epoch == key.epoch)
        {
            final long named = previous & PersistRingLayout.PREVIOUS_MASK;
            for (Carried version = key.versions; version != null; version = version.next())
            {
                if (named != 0 && named == (version.writeId() & PersistRingLayout.PREVIOUS_MASK))
                {
                    key.stood = true;
                }
            }
        }
    }

    /** The pass is over: the next begins once D moves again. */
    private void endPass()
    {
        store.endVersionPass();
        rows = false;
        running = false;
        lastPassEpoch = passEpoch;
        passes++;
    }

    /** The pass is given up (the disk refused a write): the next starts over, the log's segments where they were. */
    private void giveUp()
    {
        // a pass over the rows cut short is owed in full
        rowsAdded |= rows;
        rows = false;
        store.endVersionPass();
        running = false;
        key = null;
        dropping.clear();
        group.clear();
        later.clear();
        step = Step.READ;
        cursor = null;
        carrying = null;
        newest.clear();
    }

    /** @return segments of the version log dropped since the node started. */
    long segmentsDropped()
    {
        return segmentsDropped;
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

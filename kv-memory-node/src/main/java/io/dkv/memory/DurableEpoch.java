package io.dkv.memory;

import org.agrona.concurrent.EpochClock;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * A memory node's durable epoch (kv-memory-node/README.md, "Async across nodes"): every write of an epoch up to it
 * that a client told this node of is on its disk, fsynced. It is the least mark of the clients' rings
 * ({@link PersistRings#leastMark}) as it was when the node wrote what it had taken from them, once an fsync covered
 * that write; with no ring held, the node's clock in epochs less one (a client's ring, when it comes, starts at the
 * durable epoch then, and the client writes only later epochs). Published in the index header for clients, and kept
 * in the key store's log ahead of the fsync that makes it true, so that a restart reads at most the durable epoch of
 * the moment it stopped. The request server's thread is its one writer.
 */
final class DurableEpoch
{
    private final PersistRings rings;
    private final KeyStore store;
    private final LocalIndex index;
    private final EpochClock clock;
    private final long epochMs;
    /** The least mark when the node last wrote what it had taken: every notice up to it is in the key store. */
    private long written;
    /** What the fsync under way makes durable. */
    private long syncing;
    private long durable;
    /**
     * Held where it is while the node came back from a disk with versions and the pool may yet choose a cut below
     * what it would say ({@link #thaw}): kept as loaded, so that the cut chosen from the loaded epochs stays the
     * same whoever computes it, and whenever (kv-memory-node/README.md, "Coming back").
     */
    private boolean frozen;

    /**
     * @param store   the node's key store, or null when it keeps nothing on disk (the epoch then stays 0).
     * @param epochMs the length of an epoch, as the clients count them.
     */
    DurableEpoch(final PersistRings rings, final KeyStore store, final LocalIndex index, final EpochClock clock,
        final long epochMs)
    {
        this.rings = rings;
        this.store = store;
        this.index = index;
        this.clock = clock;
        this.epochMs = epochMs;
        this.durable = store == null ? 0 : store.durableEpoch();
        this.written = durable;
        this.syncing = durable;
        index.publishDurableEpoch(durable);
    }

    /** @return the durable epoch: what a ring created now starts at. */
    long current()
    {
        return durable;
    }

    /**
     * @return the epoch through which the node wrote everything it was told: a writer's notice of a block of this
     * epoch or an earlier one comes late (kv-memory-node/README.md, "Async across nodes").
     */
    long written()
    {
        return written;
    }

    /** @return what the rings' marks say the node has been told of up to now (the epoch as it is, while frozen). */
    long told()
    {
        return frozen ? durable : rings.leastMark(Math.max(durable, clock.time() / epochMs - 1));
    }

    /** Hold the epoch as loaded until {@link #thaw}. */
    void freeze()
    {
        frozen = true;
    }

    /** The node's keys are back and it serves as before: the epoch goes on. */
    void thaw()
    {
        frozen = false;
    }

    /** The node's keys were rolled back to {@code cut}, kept as its durable epoch on disk with them. */
    void rolledBackTo(final long cut)
    {
        durable = cut;
        written = cut;
        syncing = cut;
        index.publishDurableEpoch(cut);
    }

    /**
     * A batch of what was taken so far is about to be written: with an fsync ({@code synced}), the epoch it makes
     * durable goes in it.
     *
     * @return what to pass to {@link #written} once the write succeeded.
     */
    long beforeWrite(final WriteBatch batch, final boolean synced) throws RocksDBException
    {
        final long told = told();
        if (synced && told > durable)
        {
            store.putDurableEpoch(batch, told);
        }
        return told;
    }

    /** The batch {@link #beforeWrite} preceded was written. */
    void written(final long told, final boolean synced)
    {
        written = Math.max(written, told);
        if (synced)
        {
            madeDurable(written);
        }
    }

    /** An fsync of the log begins: what it makes durable is written ahead of it. */
    void syncStarted()
    {
        syncing = written;
        if (syncing > durable)
        {
            store.writeDurableEpoch(syncing);
        }
    }

    /** The fsync {@link #syncStarted} preceded succeeded. */
    void synced()
    {
        madeDurable(syncing);
    }

    /**
     * A turn with nothing taken waiting to be written and nothing written waiting for an fsync: what the rings' marks
     * say is on disk already; the epoch is written to the store's log, kept with its next fsync.
     *
     * @return true when it was written, without an fsync.
     */
    boolean quiet()
    {
        return keep(told());
    }

    /**
     * The node stops with every client gone and what they told it written: it was told all it ever will be, so the
     * epoch is the clock's now (a client that comes later writes after it), written to the store's log, kept with
     * the fsync that follows.
     *
     * @return true when it was written, without an fsync.
     */
    boolean allTold()
    {
        return keep(frozen ? durable : Math.max(told(), clock.time() / epochMs));
    }

    /** @return true when {@code epoch} was later than the durable one, and written to the store's log as it. */
    private boolean keep(final long epoch)
    {
        if (epoch <= durable)
        {
            return false;
        }
        try
        {
            store.writeDurableEpoch(epoch);
        }
        catch (final IllegalStateException ex)
        {
            // a disk that refuses writes: the batches' path reports it, and the epoch is written with the next
            return false;
        }
        written = Math.max(written, epoch);
        madeDurable(epoch);
        return true;
    }

    private void madeDurable(final long epoch)
    {
        if (epoch > durable)
        {
            durable = epoch;
            index.publishDurableEpoch(epoch);
        }
    }
}

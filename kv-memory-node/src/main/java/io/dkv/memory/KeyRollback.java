package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Takes a node's keys back to a cut: every key that has versions above the epoch {@code cut} becomes its newest
 * version at or below it (the one of that epoch no other of it names as replaced), or absent when it has none or that
 * one is a delete; the versions above the cut go (kv-memory-node/README.md, "Coming back"). On disk (the key's row
 * rewritten, its versions above dropped, the durable epoch kept as the cut, with one fsync at the end) and in memory
 * (its slot pointed at a block of the version, written into a chunk of the node's own, or emptied). A key with no
 * version above the cut is left as it is, whatever its row's epoch: a copy a refill wrote, or a write under durability
 * no, has no versions to go back to. A key's versions are those of the version log and those the sweep carried into
 * the key store; the log's above the cut are voided by a cut record appended once the keys' rows and the durable epoch
 * are on disk. Run on the request server's thread while no client reads or writes the node's keys (it is joining, and
 * so is every other copy of them): a crash part way leaves what is done done, and running it again at the same cut
 * does the rest (before the cut record the log reads as it did; after it, nothing is above the cut).
 */
final class KeyRollback
{
    /** Deletes and rows a batch of the rollback writes before the next (all but the last without an fsync). */
    private static final int BATCH_ROWS = 4096;

    private final KeyStore store;
    private final LocalIndex index;
    private final HeapChunks chunks;
    private final NanoClock nanoClock;
    private final EpochClock epochClock;
    private long cut;
    private long nowMillis;
    private LoadedBlocks blocks;
    private WriteBatch batch;
    private byte[] key;
    private KeyVersionRun run;
    private long keysRolledBack;
    private long keysRemoved;
    private long versionsDropped;
    private long ambiguous;

    KeyRollback(final KeyStore store, final LocalIndex index, final HeapChunks chunks, final NanoClock nanoClock,
        final EpochClock epochClock)
    {
        this.store = store;
        this.index = index;
        this.chunks = chunks;
        this.nanoClock = nanoClock;
        this.epochClock = epochClock;
    }

    /**
     * Take the keys back to {@code cut} and keep the cut as the node's durable epoch.
     *
     * @throws IllegalStateException when the disk refuses a write, or the heap or the index has no room for a version
     *                               (naming the key store's directory).
     */
    RollbackReport rollBack(final long cut)
    {
        final long start = nanoClock.nanoTime();
        this.cut = cut;
        this.nowMillis = epochClock.time();
        keysRolledBack = 0;
        keysRemoved = 0;
        versionsDropped = 0;
        ambiguous = 0;
        blocks = new LoadedBlocks(chunks, index, nanoClock);
        batch = new WriteBatch();
        try
        {
            // the keys with a version above the cut, then each one's versions whole: the rows carried out of the log
            // first (each at or below the D of its sweep), then the log's in the order appended
            final Set<ByteBuffer> above = new HashSet<>();
            final KeyStore.VersionVisitor aboveCut = (rowKey, epoch, writeId, previous, expireAt, value) ->
            {
                if (epoch > cut)
                {
                    above.add(ByteBuffer.wrap(rowKey));
                }
            };
            store.forEachVersionRow(aboveCut);
            store.versionLog().forEach(aboveCut);
            final Map<ByteBuffer, KeyVersionRun> runs = new HashMap<>();
            final KeyStore.VersionVisitor gather = (rowKey, epoch, writeId, previous, expireAt, value) ->
                runs.computeIfAbsent(ByteBuffer.wrap(rowKey), name -> new KeyVersionRun())
                    .add(epoch, writeId, previous, expireAt, value);
            for (final ByteBuffer name : above)
            {
                store.forEachVersionRowOf(name.array(), gather);
            }
            store.versionLog().forEach((rowKey, epoch, writeId, previous, expireAt, value) ->
            {
                if (above.contains(ByteBuffer.wrap(rowKey)))
                {
                    gather.visit(rowKey, epoch, writeId, previous, expireAt, value);
                }
            });
            for (final Map.Entry<ByteBuffer, KeyVersionRun> entry : runs.entrySet())
            {
                key = entry.getKey().array();
                run = entry.getValue();
                decide();
            }
            store.putDurableEpoch(batch, cut);
            store.write(batch, true);
            // the rows and the epoch on disk, the log's versions above the cut are void: a rollback done again
            // before this reads the log as this one did
            store.voidVersionsAbove(cut);
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot roll the key store in " + store.path() + " back to epoch " + cut +
                ": " + ex.getMessage(), ex);
        }
        finally
        {
            batch.close();
            batch = null;
            blocks.finish();
            key = null;
            run = null;
        }
        return new RollbackReport(cut, keysRolledBack, keysRemoved, versionsDropped, ambiguous,
            (nanoClock.nanoTime() - start) / 1_000_000L);
    }

    /** The key's versions are all read: roll it back if it has any above the cut. */
    private void decide()
    {
        if (key == null)
        {
            return;
        }
        try
        {
            // an acknowledged write under durability sync is never taken back: the newest of those above the cut
            // stands, or the newest version at or below it
            long kept = -1;
            for (int i = 0; i < run.size(); i++)
            {
                if (run.epoch(i) > cut && run.sync(i))
                {
                    kept = Math.max(kept, run.epoch(i));
                }
            }
            final long newest = kept >= 0 ? kept : run.newestAtOrBelow(cut);
            final int target = newest < 0 ? -1 : kept >= 0 ? run.lastSyncOf(kept, lastOf(kept)) : lastOf(newest);
            boolean changed = false;
            for (int i = 0; i < run.size(); i++)
            {
                if (run.epoch(i) > cut && i != target)
                {
                    // a row carried out of the log goes; one of the log is voided by the cut record at the end
                    changed = true;
                    store.dropVersion(batch, key, run.epoch(i), run.writeId(i));
                    versionsDropped++;
                }
            }
            if (changed)
            {
                restore(target);
            }
            if (batch.count() >= BATCH_ROWS)
            {
                store.write(batch, false);
                batch.clear();
            }
        }
        catch (final RocksDBException ex)
        {
            throw new IllegalStateException("cannot roll key '" + keyName() + "' back in the key store in " +
                store.path() + ": " + ex.getMessage(), ex);
        }
        finally
        {
            key = null;
        }
    }

    /** @return of the key's versions of {@code epoch}, the one no other of that epoch names as replaced. */
    private int lastOf(final long epoch)
    {
        int last = -1;
        int candidates = 0;
        for (int i = 0; i < run.size(); i++)
        {
            if (run.epoch(i) == epoch && !run.replacedInEpoch(i, epoch))
            {
                last = i;
                candidates++;
            }
        }
        if (candidates > 1)
        {
            // two writes of one epoch neither names (a chain with a notice missing): the later in row order stands
            ambiguous++;
        }
        return last;
    }

    private String keyName()
    {
        return new String(key, StandardCharsets.ISO_8859_1);
    }

    /** Make version {@code i} (-1: none) the key's, on disk and in the index. */
    private void restore(final int i) throws RocksDBException
    {
        final long slot = index.committedSlotOf(key);
        final long expireAt = i < 0 ? KvBlockLayout.TOMBSTONE : run.expireAt(i);
        if (i < 0 || expireAt == KvBlockLayout.TOMBSTONE || KvBlockLayout.isExpired(expireAt, nowMillis))
        {
            store.delete(batch, key);
            if (slot >= 0)
            {
                index.clearSlot(slot, index.slotWord(slot));
            }
            keysRemoved++;
            return;
        }
        final byte[] value = run.value(i);
        store.put(batch, key, expireAt, run.writeId(i), run.epoch(i), value);
        final long block = blocks.write(key, value, expireAt, run.writeId(i), run.epoch(i));
        if (block < 0)
        {
            throw new IllegalStateException("the heap has no room for key '" + keyName() + "' rolled back to epoch " +
                cut + " in " + store.path() + ": start the node with a larger heap");
        }
        final int length = KvBlockLayout.blockLength(key.length, value.length);
        final boolean expires = expireAt != KvBlockLayout.NEVER;
        final boolean placed = slot >= 0 ?
            index.replaceSlot(key, slot, index.slotWord(slot), block, length, expires, blocks.generation()) :
            index.restore(key, block, length, expires, blocks.generation());
        if (!placed)
        {
            throw new IllegalStateException("the index has no slot for key '" + keyName() + "' rolled back to epoch " +
                cut + " in " + store.path() + ": start the node with more index groups");
        }
        keysRolledBack++;
    }
}

package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import io.dkv.format.PersistRingLayout;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.collections.LongHashSet;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * The versions one batch of the key store writes (to its version log, {@link KeyStore}): one a writer's notice, read
 * from the block the notice named, not from what the index holds now, so that a version replaced before its notice
 * was taken is still kept. Of a key's versions in one epoch only the last can be the newest at or below any durable
 * epoch, so a chain the batch holds whole in one epoch (v1, then v2 naming v1, then v3 naming v2) is written as its
 * last, naming what its first named: a hot key costs a record a batch, whatever order its notices came in. The request
 * server's thread alone uses it; what it holds goes when the batch is written.
 */
final class KeyVersions
{
    private static final long NONE = -1;
    /**
     * What a delete's version's write id is: the emptied block's, its low 48 bits turned, so that it is not that
     * version's own and no later write names it (a write after a delete replaces no version).
     */
    static final long DELETE_ID_TURN = 0x5A5A_5A5A_5A5AL;
    private static final byte[] NO_VALUE = new byte[0];

    private final LocalIndex index;
    private final ArrayList<byte[]> keys = new ArrayList<>();
    private final LongArrayList blocks = new LongArrayList();
    /** Each version's write id: its block's, or a delete's ({@link #DELETE_ID_TURN}). */
    private final LongArrayList writeIds = new LongArrayList();
    /** Which versions are deletes. */
    private final ArrayList<Boolean> deletes = new ArrayList<>();
    /** Which versions' writers waited for the disk ({@link KeyStore#SYNC_VERSION}): never stood for by a later one. */
    private final ArrayList<Boolean> syncs = new ArrayList<>();
    private final LongArrayList epochs = new LongArrayList();
    private final LongArrayList previous = new LongArrayList();
    /** Versions a later one of the batch replaced within their epoch: not written. */
    private final LongArrayList dropped = new LongArrayList();
    /** Of the versions written: the low 48 bits of each one's write id, to its place. */
    private final Long2LongHashMap byWrite = new Long2LongHashMap(NONE);
    /** Of the versions written that name one: the previous write they name, to their place. */
    private final Long2LongHashMap byPrevious = new Long2LongHashMap(NONE);
    /** The low 48 bits of the write ids of the versions a later one stands for: told again, still not written. */
    private final LongHashSet collapsed = new LongHashSet();
    private long versionsCollapsed;

    KeyVersions(final LocalIndex index)
    {
        this.index = index;
    }

    /**
     * A writer's notice, taken: the version at {@code block} (whole, and not reused before the batch is written).
     *
     * @param key      the block's key.
     * @param notice the low 48 bits of the write id of the version the write replaced (0: none), with
     *               {@link KeyStore#SYNC_VERSION} where its writer waits for the disk.
     */
    void add(final byte[] key, final long block, final long notice)
    {
        final boolean sync = (notice & KeyStore.SYNC_VERSION) != 0;
        final long replaced = notice & ~KeyStore.SYNC_VERSION;
        final long blockWriteId = index.writeIdOf(block);
        // a delete under durability async names the block it emptied, and that block's own write: kept as a delete
        // of that version's epoch (the delete's own is not told), so a cut at or past it does not bring the value back
        final boolean delete = replaced == (blockWriteId & PersistRingLayout.PREVIOUS_MASK);
        final long fullWriteId = delete ? blockWriteId ^ DELETE_ID_TURN : blockWriteId;
        final long writeId = fullWriteId & PersistRingLayout.PREVIOUS_MASK;
        final long epoch = index.epochOf(block);
        final int known = (int)byWrite.get(writeId);
        if (known != NONE && sameVersionOf(known, key, epoch) || collapsed.contains(writeId))
        {
            // told twice (a replica copied onto the node again): one row, or none
            return;
        }
        long named = replaced;
        final int before = named == 0 ? (int)NONE : (int)byWrite.get(named);
        if (before != NONE && sameVersionOf(before, key, epoch) && !syncs.get(before))
        {
            // its predecessor in the batch, of the same epoch: only this one can be that epoch's last
            drop(before);
            named = previous.getLong(before);
        }
        final int after = (int)byPrevious.get(writeId);
        if (after != NONE && sameVersionOf(after, key, epoch) && !sync)
        {
            // its successor's notice was taken first: that one stands for both, naming what this one named
            byPrevious.remove(writeId);
            previous.setLong(after, named);
            if (named != 0)
            {
                byPrevious.put(named, after);
            }
            collapsed.add(writeId);
            versionsCollapsed++;
            return;
        }
        final int at = keys.size();
        keys.add(key);
        blocks.addLong(block);
        writeIds.addLong(fullWriteId);
        deletes.add(delete);
        syncs.add(sync);
        epochs.addLong(epoch);
        previous.addLong(named);
        byWrite.put(writeId, at);
        if (named != 0)
        {
            byPrevious.put(named, at);
        }
    }

    /**
     * Append the versions gathered to the store's version log (written before the store's next write), and forget
     * them.
     *
     * @throws IllegalStateException when the disk refuses them.
     */
    void writeTo(final KeyStore store)
    {
        dropped.sort(null);
        int nextDropped = 0;
        for (int i = 0; i < keys.size(); i++)
        {
            if (nextDropped < dropped.size() && dropped.getLong(nextDropped) == i)
            {
                nextDropped++;
                continue;
            }
            final long block = blocks.getLong(i);
            final long expireAt = deletes.get(i) ? KvBlockLayout.TOMBSTONE : index.expireAtOf(block);
            store.appendVersion(keys.get(i), epochs.getLong(i), writeIds.getLong(i),
                previous.getLong(i) | (syncs.get(i) ? KeyStore.SYNC_VERSION : 0), expireAt,
                expireAt == KvBlockLayout.TOMBSTONE ? NO_VALUE : index.valueAt(block));
        }
        clear();
    }

    /** Forget what was gathered: the batch was not written (its keys wait for the disk), or was. */
    void clear()
    {
        keys.clear();
        blocks.clear();
        writeIds.clear();
        deletes.clear();
        syncs.clear();
        epochs.clear();
        previous.clear();
        dropped.clear();
        byWrite.clear();
        byPrevious.clear();
        collapsed.clear();
    }

    /** @return versions gathered now that a batch would write. */
    int size()
    {
        return keys.size() - dropped.size();
    }

    /** @return versions that a later one of their batch stood for (never written), since the node started. */
    long versionsCollapsed()
    {
        return versionsCollapsed;
    }

    /** A version found through the maps: one written, never one dropped (dropping takes it out of them). */
    private boolean sameVersionOf(final int at, final byte[] key, final long epoch)
    {
        return epochs.getLong(at) == epoch && Arrays.equals(keys.get(at), key);
    }

    private void drop(final int at)
    {
        final long writeId = writeIds.getLong(at) & PersistRingLayout.PREVIOUS_MASK;
        byWrite.remove(writeId);
        collapsed.add(writeId);
        final long named = previous.getLong(at);
        if (named != 0)
        {
            byPrevious.remove(named);
        }
        dropped.addLong(at);
        versionsCollapsed++;
    }
}

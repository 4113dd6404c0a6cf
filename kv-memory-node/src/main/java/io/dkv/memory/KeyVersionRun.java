package io.dkv.memory;

import io.dkv.format.PersistRingLayout;
import org.agrona.collections.LongArrayList;

import java.util.ArrayList;
import java.util.List;

/**
 * One key's versions as a pass reads them (the key store's rows in row order, epoch then write id; the version log's
 * in the order appended), each once: what the sweep that drops versions and a rollback to a cut decide on. Of a key's
 * versions in one epoch the last is the one no other of that epoch names as the version it replaced
 * (kv-memory-node/README.md, "Async across nodes").
 */
final class KeyVersionRun
{
    private final LongArrayList epochs = new LongArrayList();
    private final LongArrayList writeIds = new LongArrayList();
    private final LongArrayList previous = new LongArrayList();
    private final LongArrayList expireAts = new LongArrayList();
    /** Which versions' writers waited for the disk ({@link KeyStore#SYNC_VERSION}). */
    private final ArrayList<Boolean> syncs = new ArrayList<>();
    /** Each version's value, where the pass reads them (null entries where it does not). */
    private final List<byte[]> values = new ArrayList<>();

    /**
     * @param stored the previous word as stored: the replaced version's write id (low 48 bits) and
     *               {@link KeyStore#SYNC_VERSION}.
     */
    void add(final long epoch, final long writeId, final long stored, final long expireAt, final byte[] value)
    {
        for (int i = 0; i < epochs.size(); i++)
        {
            if (epochs.getLong(i) == epoch && writeIds.getLong(i) == writeId)
            {
                // the same version twice: the sweep carried it and a crash came before it deleted the segment
                return;
            }
        }
        epochs.addLong(epoch);
        writeIds.addLong(writeId);
        previous.addLong(stored & ~KeyStore.SYNC_VERSION);
        syncs.add((stored & KeyStore.SYNC_VERSION) != 0);
        expireAts.addLong(expireAt);
        values.add(value);
    }

    void clear()
    {
        epochs.clear();
        writeIds.clear();
        previous.clear();
        expireAts.clear();
        syncs.clear();
        values.clear();
    }

    int size()
    {
        return epochs.size();
    }

    long epoch(final int i)
    {
        return epochs.getLong(i);
    }

    long writeId(final int i)
    {
        return writeIds.getLong(i);
    }

    long expireAt(final int i)
    {
        return expireAts.getLong(i);
    }

    /** @return whether version {@code i}'s writer waited for the disk: acknowledged, never rolled back. */
    boolean sync(final int i)
    {
        return syncs.get(i);
    }

    byte[] value(final int i)
    {
        return values.get(i);
    }

    /** @return the greatest epoch of a version at or below {@code epoch}, or -1 when none is. */
    long newestAtOrBelow(final long epoch)
    {
        long newest = -1;
        for (int i = 0; i < epochs.size(); i++)
        {
            if (epochs.getLong(i) <= epoch)
            {
                newest = Math.max(newest, epochs.getLong(i));
            }
        }
        return newest;
    }

    /**
     * @param last the last version of {@code epoch}, by {@link #replacedInEpoch}.
     * @return the newest of that epoch whose writer waited for the disk, found back along what each version names from
     * {@code last}; the last such in row order where that chain breaks; -1 when the epoch has none.
     */
    int lastSyncOf(final long epoch, final int last)
    {
        int at = last;
        for (int steps = 0; at >= 0 && steps < epochs.size(); steps++)
        {
            if (syncs.get(at))
            {
                return at;
            }
            final long named = previous.getLong(at);
            int found = -1;
            for (int j = 0; j < epochs.size() && found < 0; j++)
            {
                if (epochs.getLong(j) == epoch && named != 0 &&
                    (writeIds.getLong(j) & PersistRingLayout.PREVIOUS_MASK) == named)
                {
                    found = j;
                }
            }
            at = found;
        }
        int any = -1;
        for (int j = 0; j < epochs.size(); j++)
        {
            if (epochs.getLong(j) == epoch && syncs.get(j))
            {
                any = j;
            }
        }
        return any;
    }

    /** @return whether another version of the key, of that epoch, names version {@code i} as the one it replaced. */
    boolean replacedInEpoch(final int i, final long epoch)
    {
        final long named = writeIds.getLong(i) & PersistRingLayout.PREVIOUS_MASK;
        for (int j = 0; j < epochs.size(); j++)
        {
            if (j != i && epochs.getLong(j) == epoch && previous.getLong(j) == named)
            {
                return true;
            }
        }
        return false;
    }
}

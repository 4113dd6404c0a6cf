package io.dkv.memory;

import io.dkv.format.PersistRingLayout;
import org.agrona.collections.LongArrayList;

import java.util.ArrayList;
import java.util.List;

/**
 * One key's versions as a pass over the key store reads them, in row order (epoch, then write id): what the sweep
 * that drops versions and a rollback to a cut decide on. Of a key's versions in one epoch the last is the one no other
 * of that epoch names as the version it replaced (kv-memory-node/README.md, "Async across nodes").
 */
final class KeyVersionRun
{
    private final LongArrayList epochs = new LongArrayList();
    private final LongArrayList writeIds = new LongArrayList();
    private final LongArrayList previous = new LongArrayList();
    private final LongArrayList expireAts = new LongArrayList();
    /** Each version's value, where the pass reads them (null entries where it does not). */
    private final List<byte[]> values = new ArrayList<>();

    void add(final long epoch, final long writeId, final long replaced, final long expireAt, final byte[] value)
    {
        epochs.addLong(epoch);
        writeIds.addLong(writeId);
        previous.addLong(replaced);
        expireAts.addLong(expireAt);
        values.add(value);
    }

    void clear()
    {
        epochs.clear();
        writeIds.clear();
        previous.clear();
        expireAts.clear();
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

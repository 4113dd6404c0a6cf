package io.dkv.client.txn;

import static io.dkv.client.txn.Values.X;
import static io.dkv.client.txn.Values.Y;
import static io.dkv.client.txn.Values.Z;

/**
 * What a coordinator's transaction does: the keys it reads, in order, and the keys it writes, the first its primary.
 * A written key that was read gets the list read with the transaction's id appended (the transfer's shape, x - 1 and
 * y + 1, as an append-only list, so that every write is told apart); one never read is set to the list [id].
 */
enum Workload
{
    /** Reads x and y and appends to both: every key read is written, nothing is left to validate. */
    APPEND_XY(new int[]{X, Y}, new int[]{X, Y}),

    /** Reads x and y and appends to both, y first: its primary is y, another transaction's secondary. */
    APPEND_YX(new int[]{X, Y}, new int[]{Y, X}),

    /** Write skew's first half: reads x and y, appends to x; y is validated. */
    SKEW_X(new int[]{X, Y}, new int[]{X}),

    /** Write skew's second half: reads x and y, appends to y; x is validated. */
    SKEW_Y(new int[]{X, Y}, new int[]{Y}),

    /** A blind write of x and y, as MSET: nothing read, each key set to [id]. */
    MSET_XY(new int[0], new int[]{X, Y}),

    /** Reads x, y and z and appends to all three: two secondaries, swapped in at once. */
    APPEND_XYZ(new int[]{X, Y, Z}, new int[]{X, Y, Z});

    private final int[] reads;
    private final int[] writes;

    Workload(final int[] reads, final int[] writes)
    {
        this.reads = reads;
        this.writes = writes;
    }

    int readMask()
    {
        return mask(reads);
    }

    int writeMask()
    {
        return mask(writes);
    }

    /** @return the keys read but not written, which the commit validates. */
    int validated()
    {
        return readMask() & ~writeMask();
    }

    int primary()
    {
        return writes[0];
    }

    int secondaries()
    {
        return writeMask() & ~(1 << primary());
    }

    /** @return the next key to read through the store: the reads in order, then the keys written but never read. */
    int nextLookup(final KeyInts read)
    {
        for (final int key : reads)
        {
            if (!read.has(key))
            {
                return key;
            }
        }
        for (final int key : writes)
        {
            if (!read.has(key))
            {
                return key;
            }
        }
        return -1;
    }

    int newValue(final int txn, final int key, final KeyInts readValues)
    {
        return Values.append((readMask() & (1 << key)) != 0 ? readValues.get(key) : Values.NONE, txn);
    }

    int highestKey()
    {
        int highest = 0;
        for (final int key : writes)
        {
            highest = Math.max(highest, key);
        }
        for (final int key : reads)
        {
            highest = Math.max(highest, key);
        }
        return highest;
    }

    private static int mask(final int[] keys)
    {
        int mask = 0;
        for (final int key : keys)
        {
            mask |= 1 << key;
        }
        return mask;
    }
}

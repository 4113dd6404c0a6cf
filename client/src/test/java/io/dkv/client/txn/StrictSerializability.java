package io.dkv.client.txn;

/**
 * Decides exactly whether a tiny history of transactions over registers is strictly serializable: some total order of
 * its operations, consistent with real time (one that answered before another was invoked comes first), in which
 * every operation reads, for each key it read, the value of the latest write of that key before it (or the initial
 * none). Operations that answered ok must be in it, those that failed must not, and those without a certain answer
 * whose writes were fixed may be or not (they may have taken effect); their reads count when they are in. Reads
 * without an answer constrain nothing. At rest, the keys' values must also be what the order leaves, which is the
 * atomicity check: no write lost, none half applied. Every subset and permutation is tried: five operations give at
 * most 4 x 120 orders.
 */
final class StrictSerializability
{
    private StrictSerializability()
    {
    }

    /**
     * @param keys   how many keys there are; each starts with no value.
     * @param atRest the keys' values once every client is done, or null to check the history alone.
     */
    static boolean holds(final TxnHistory history, final int keys, final KeyInts atRest)
    {
        int required = 0;
        int optional = 0;
        for (int op = 0; op < history.size(); op++)
        {
            final Op o = history.op(op);
            if (o.status() == Op.OK)
            {
                required |= 1 << op;
            }
            else if (o.maybe())
            {
                optional |= 1 << op;
            }
        }
        KeyInts initial = KeyInts.EMPTY;
        for (int key = 0; key < keys; key++)
        {
            initial = initial.with(key, Values.NONE);
        }
        for (int chosen = optional; ; chosen = (chosen - 1) & optional)
        {
            if (orderExists(history, required | chosen, initial, atRest))
            {
                return true;
            }
            if (chosen == 0)
            {
                return false;
            }
        }
    }

    /**
     * @param left    the operations not yet placed.
     * @param current the keys' values after those placed so far.
     */
    private static boolean orderExists(final TxnHistory history, final int left, final KeyInts current,
        final KeyInts atRest)
    {
        if (left == 0)
        {
            return atRest == null || atRest.equals(current);
        }
        for (int op = 0; op < history.size(); op++)
        {
            if ((left & (1 << op)) == 0 || !mayComeNext(history, op, left))
            {
                continue;
            }
            final Op o = history.op(op);
            if (readsMatch(o.reads(), current) &&
                orderExists(history, left & ~(1 << op), applied(o.writes(), current), atRest))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean readsMatch(final KeyInts reads, final KeyInts current)
    {
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            if (reads.has(key) && reads.get(key) != current.get(key))
            {
                return false;
            }
        }
        return true;
    }

    private static KeyInts applied(final KeyInts writes, final KeyInts current)
    {
        KeyInts next = current;
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            if (writes.has(key))
            {
                next = next.with(key, writes.get(key));
            }
        }
        return next;
    }

    /** An operation may come next only if no operation still to be placed answered before it was invoked. */
    private static boolean mayComeNext(final TxnHistory history, final int op, final int left)
    {
        for (int other = 0; other < history.size(); other++)
        {
            if (other != op && (left & (1 << other)) != 0 && history.precedes(other, op))
            {
                return false;
            }
        }
        return true;
    }
}

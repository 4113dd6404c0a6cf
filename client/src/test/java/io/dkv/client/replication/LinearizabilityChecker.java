package io.dkv.client.replication;

/**
 * Decides exactly whether a tiny register history is linearizable: some order of its operations, consistent with
 * real time, in which every read returns the value of the latest write before it. Writes that answered ok must be in
 * it, writes that failed must not, and writes without an answer may be or not (they may have landed). Reads without
 * an answer constrain nothing. Every subset and permutation is tried: four operations give at most 4 x 24 orders.
 */
final class LinearizabilityChecker
{
    private static final int INITIAL = 0;

    private LinearizabilityChecker()
    {
    }

    static boolean isLinearizable(final History history)
    {
        final int n = history.size();
        int required = 0;
        int optional = 0;
        for (int op = 0; op < n; op++)
        {
            final int status = history.status()[op];
            if (status == History.OK)
            {
                required |= 1 << op;
            }
            else if (status == History.PENDING && History.isWrite(op))
            {
                optional |= 1 << op;
            }
        }
        // every subset of the optional writes, from none to all
        for (int chosen = optional; ; chosen = (chosen - 1) & optional)
        {
            if (orderExists(history, required | chosen, 0, INITIAL))
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
     * @param placed  the operations placed so far, in some order.
     * @param current the register's value after them.
     */
    private static boolean orderExists(final History history, final int left, final int placed, final int current)
    {
        if (left == 0)
        {
            return true;
        }
        for (int op = 0; op < history.size(); op++)
        {
            if ((left & (1 << op)) == 0 || !mayComeNext(history, op, left))
            {
                continue;
            }
            if (History.isWrite(op))
            {
                if (orderExists(history, left & ~(1 << op), placed | (1 << op), History.written(op)))
                {
                    return true;
                }
            }
            else if (history.readValue()[op] == current &&
                orderExists(history, left & ~(1 << op), placed | (1 << op), current))
            {
                return true;
            }
        }
        return false;
    }

    /** An operation may come next only if no operation still to be placed answered before it was invoked. */
    private static boolean mayComeNext(final History history, final int op, final int left)
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

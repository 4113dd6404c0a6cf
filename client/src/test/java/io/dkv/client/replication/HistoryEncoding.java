package io.dkv.client.replication;

/**
 * How a model state keeps its history in its int vector, from {@code base} on: per operation its status and the value
 * it read, then one word of real-time order bits (operation {@code before} answered before {@code op} was invoked:
 * bit {@code before * operations + op}). One layout for both models' states, so that {@link History} reads them alike.
 */
final class HistoryEncoding
{
    private HistoryEncoding()
    {
    }

    /** @return ints the history of this many operations takes. */
    static int length(final int operations)
    {
        return 2 * operations + 1;
    }

    static int status(final int[] v, final int base, final int op)
    {
        return v[base + 2 * op];
    }

    /** Invoking an operation orders it after every operation that has answered. */
    static void invoke(final int[] v, final int base, final int operations, final int op)
    {
        for (int before = 0; before < operations; before++)
        {
            final int status = status(v, base, before);
            if (status == History.OK || status == History.FAILED)
            {
                v[base + 2 * operations] |= 1 << (before * operations + op);
            }
        }
        v[base + 2 * op] = History.PENDING;
    }

    static void answer(final int[] v, final int base, final int op, final int status, final int readValue)
    {
        v[base + 2 * op] = status;
        v[base + 2 * op + 1] = readValue;
    }

    static History history(final int[] v, final int base, final int operations)
    {
        final int[] status = new int[operations];
        final int[] readValue = new int[operations];
        for (int op = 0; op < operations; op++)
        {
            status[op] = v[base + 2 * op];
            readValue[op] = v[base + 2 * op + 1];
        }
        return new History(status, readValue, v[base + 2 * operations]);
    }
}

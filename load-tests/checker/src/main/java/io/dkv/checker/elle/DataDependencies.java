package io.dkv.checker.elle;

/**
 * The ww, wr and rw dependencies the version orders imply (Adya). Failed transactions took no part, so no
 * dependency touches them; reads are known only for ok transactions, and only a transaction's first access to a
 * key (an external read) says what others wrote.
 */
final class DataDependencies
{
    private DataDependencies()
    {
    }

    static void add(
        final Transactions transactions, final Writers writers, final VersionOrders orders,
        final DependencyGraph.Builder graph)
    {
        for (int key = 0; key < transactions.keyCount(); key++)
        {
            final long[] order = orders.order(key);
            int previous = order.length == 0 ? Writers.NONE : writers.writer(key, order[0]);
            for (int position = 0; position + 1 < order.length; position++)
            {
                final int next = writers.writer(key, order[position + 1]);
                if (takesPart(transactions, previous) && takesPart(transactions, next) && previous != next)
                {
                    graph.add(previous, next, DependencyGraph.WW, key, position);
                }
                previous = next;
            }
        }

        for (int read = 0; read < transactions.microOpCount(); read++)
        {
            if (transactions.isKnownRead(read) && orders.isCompatible(read) && transactions.isFirstOnKey(read))
            {
                final int reader = transactions.transactionOf(read);
                final int key = transactions.key(read);
                final long[] order = orders.order(key);
                final int length = transactions.readLength(read);
                if (length > 0)
                {
                    final int writer = writers.writer(key, order[length - 1]);
                    if (takesPart(transactions, writer) && writer != reader)
                    {
                        graph.add(writer, reader, DependencyGraph.WR, key, length - 1);
                    }
                }
                if (length < order.length)
                {
                    final int overwriter = writers.writer(key, order[length]);
                    if (takesPart(transactions, overwriter) && overwriter != reader)
                    {
                        graph.add(reader, overwriter, DependencyGraph.RW, key, length);
                    }
                }
            }
        }
    }

    private static boolean takesPart(final Transactions transactions, final int transaction)
    {
        return transaction != Writers.NONE && !transactions.isFailed(transaction);
    }
}

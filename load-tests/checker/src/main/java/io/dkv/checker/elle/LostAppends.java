package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;
import org.agrona.collections.LongHashSet;

import java.util.Arrays;
import java.util.List;

/**
 * Appends that committed and were then lost: an ok transaction appended an element that no read
 * ever saw, although a read of the key began after the transaction completed. The element has no
 * place in the key's version order, so no dependency edge can reach it and no cycle shows it;
 * under strict serializability the later read must hold it.
 */
final class LostAppends
{
    private LostAppends()
    {
    }

    static void find(final Transactions transactions, final VersionOrders orders, final Findings findings)
    {
        final int keys = transactions.keyCount();
        final long[] latestReadStart = new long[keys];
        final int[] latestRead = new int[keys];
        Arrays.fill(latestReadStart, Long.MIN_VALUE);
        Arrays.fill(latestRead, -1);
        for (int microOp = 0; microOp < transactions.microOpCount(); microOp++)
        {
            if (transactions.isKnownRead(microOp) && transactions.isFirstOnKey(microOp))
            {
                final int key = transactions.key(microOp);
                final long start = transactions.operation(transactions.transactionOf(microOp)).invokeTime();
                if (start > latestReadStart[key])
                {
                    latestReadStart[key] = start;
                    latestRead[key] = microOp;
                }
            }
        }
        final LongHashSet[] seen = new LongHashSet[keys];
        for (int microOp = 0; microOp < transactions.microOpCount(); microOp++)
        {
            if (!transactions.isAppend(microOp) || !transactions.isOk(transactions.transactionOf(microOp)))
            {
                continue;
            }
            final int key = transactions.key(microOp);
            final Operation writer = transactions.operation(transactions.transactionOf(microOp));
            if (latestRead[key] < 0 || latestReadStart[key] <= writer.completeTime())
            {
                continue;
            }
            if (seen[key] == null)
            {
                seen[key] = elements(orders.order(key));
            }
            final long element = transactions.element(microOp);
            if (!seen[key].contains(element))
            {
                final int read = latestRead[key];
                findings.add(AnomalyNames.LOST_APPEND, () ->
                {
                    final Operation reader = transactions.operation(transactions.transactionOf(read));
                    return new Witness(AnomalyNames.LOST_APPEND, List.of(writer, reader), List.of(),
                        Describe.label(1, writer) + " appended " + element + " to " + transactions.keyName(key) +
                        " and completed, yet no read ever saw it, not even " + Describe.label(2, reader) +
                        ", which began after it and read " + transactions.keyName(key) + " = " +
                        Describe.list(transactions.readList(read)) +
                        " (lost append)");
                });
            }
        }
    }

    private static LongHashSet elements(final long[] order)
    {
        final LongHashSet elements = new LongHashSet(Math.max(8, order.length * 2));
        for (final long element : order)
        {
            elements.add(element);
        }
        return elements;
    }
}

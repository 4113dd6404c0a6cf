package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;
import org.agrona.collections.LongHashSet;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * Each key's version order, inferred from the lists read: every read must be a prefix of the longest one, which
 * then orders the elements. Reads that are not (incompatible-order) are marked and give no dependencies.
 */
final class VersionOrders
{
    private static final long[] EMPTY = new long[0];

    private final long[][] orders;
    private final BitSet incompatibleReads;

    private VersionOrders(final long[][] orders, final BitSet incompatibleReads)
    {
        this.orders = orders;
        this.incompatibleReads = incompatibleReads;
    }

    static VersionOrders of(final Transactions transactions, final Findings findings)
    {
        final int[] longestRead = new int[transactions.keyCount()];
        Arrays.fill(longestRead, -1);
        for (int microOp = 0; microOp < transactions.microOpCount(); microOp++)
        {
            if (transactions.isKnownRead(microOp))
            {
                final int key = transactions.key(microOp);
                if (longestRead[key] < 0 ||
                    transactions.readLength(microOp) > transactions.readLength(longestRead[key]))
                {
                    longestRead[key] = microOp;
                }
            }
        }

        final long[][] orders = new long[longestRead.length][];
        for (int key = 0; key < orders.length; key++)
        {
            orders[key] = longestRead[key] < 0 ? EMPTY : elements(transactions, longestRead[key]);
            reportDuplicates(transactions, findings, longestRead[key], orders[key]);
        }

        final BitSet incompatibleReads = new BitSet(transactions.microOpCount());
        for (int microOp = 0; microOp < transactions.microOpCount(); microOp++)
        {
            if (transactions.isKnownRead(microOp))
            {
                final int key = transactions.key(microOp);
                final int mismatch = firstMismatch(transactions, microOp, orders[key]);
                if (mismatch >= 0)
                {
                    incompatibleReads.set(microOp);
                    reportIncompatible(transactions, findings, microOp, longestRead[key], mismatch);
                }
            }
        }
        return new VersionOrders(orders, incompatibleReads);
    }

    private static long[] elements(final Transactions transactions, final int read)
    {
        final long[] elements = new long[transactions.readLength(read)];
        for (int i = 0; i < elements.length; i++)
        {
            elements[i] = transactions.readElement(read, i);
        }
        return elements;
    }

    private static int firstMismatch(final Transactions transactions, final int read, final long[] order)
    {
        final int length = transactions.readLength(read);
        for (int i = 0; i < length; i++)
        {
            if (transactions.readElement(read, i) != order[i])
            {
                return i;
            }
        }
        return -1;
    }

    private static void reportDuplicates(
        final Transactions transactions, final Findings findings, final int read, final long[] order)
    {
        final LongHashSet seen = new LongHashSet(Math.max(8, order.length * 2));
        for (final long element : order)
        {
            if (!seen.add(element))
            {
                findings.add(AnomalyNames.DUPLICATE_ELEMENTS, () ->
                {
                    final Operation reader = transactions.operation(transactions.transactionOf(read));
                    return new Witness(AnomalyNames.DUPLICATE_ELEMENTS, List.of(reader), List.of(),
                        Describe.label(1, reader) + " read " + transactions.keyName(transactions.key(read)) + " = " +
                        Describe.prefix(order, order.length) + ", holding " + element + " more than once");
                });
                return;
            }
        }
    }

    private static void reportIncompatible(
        final Transactions transactions, final Findings findings, final int read, final int longest, final int mismatch)
    {
        findings.add(AnomalyNames.INCOMPATIBLE_ORDER, () ->
        {
            final Operation reader = transactions.operation(transactions.transactionOf(read));
            final Operation longestReader = transactions.operation(transactions.transactionOf(longest));
            final String key = transactions.keyName(transactions.key(read));
            final List<?> readList = transactions.readList(read);
            final List<?> longestList = transactions.readList(longest);
            return new Witness(AnomalyNames.INCOMPATIBLE_ORDER, List.of(reader, longestReader), List.of(),
                Describe.label(1, reader) + " read " + key + " = " + Describe.list(readList) + " and " +
                Describe.label(2, longestReader) + " read " + key + " = " + Describe.list(longestList) +
                ": they differ at position " + mismatch + " (" + readList.get(mismatch) + " against " +
                longestList.get(mismatch) +
                "), so no single order of appends explains both");
        });
    }

    /** @return the key's elements in the order they were appended, as far as reads show it. */
    long[] order(final int key)
    {
        return orders[key];
    }

    /** @return true when the read's list is a prefix of its key's version order. */
    boolean isCompatible(final int read)
    {
        return !incompatibleReads.get(read);
    }
}

package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;

import java.util.Arrays;
import java.util.List;

/**
 * Anomalies a single read shows, without any cycle: it saw an element of a failed transaction (G1a), an
 * element nobody appended (garbage-read), or ended at an element its writer followed with another append to the
 * key (G1b).
 */
final class ReadAnomalies
{
    private static final int NOWHERE = Integer.MAX_VALUE;

    private ReadAnomalies()
    {
    }

    static void find(final Transactions transactions, final Writers writers, final VersionOrders orders,
        final Findings findings)
    {
        final int[] firstAborted = new int[transactions.keyCount()];
        final int[] firstGarbage = new int[transactions.keyCount()];
        Arrays.fill(firstAborted, NOWHERE);
        Arrays.fill(firstGarbage, NOWHERE);
        for (int key = 0; key < firstAborted.length; key++)
        {
            final long[] order = orders.order(key);
            for (int position = order.length - 1; position >= 0; position--)
            {
                final int writer = writers.writer(key, order[position]);
                if (writer == Writers.NONE)
                {
                    firstGarbage[key] = position;
                }
                else if (transactions.isFailed(writer))
                {
                    firstAborted[key] = position;
                }
            }
        }

        for (int read = 0; read < transactions.microOpCount(); read++)
        {
            if (transactions.isKnownRead(read))
            {
                final int key = transactions.key(read);
                final int length = transactions.readLength(read);
                final boolean compatible = orders.isCompatible(read);
                final int aborted = compatible ? firstAborted[key] : scan(transactions, writers, read, true);
                final int garbage = compatible ? firstGarbage[key] : scan(transactions, writers, read, false);
                if (aborted < length)
                {
                    final long element = transactions.readElement(read, aborted);
                    reportAbortedRead(transactions, findings, read, writers.writer(key, element), element);
                }
                if (garbage < length)
                {
                    reportGarbageRead(transactions, findings, read, transactions.readElement(read, garbage));
                }
                if (length > 0)
                {
                    final long last = transactions.readElement(read, length - 1);
                    final int writer = writers.writer(key, last);
                    if (writer != Writers.NONE && writer != transactions.transactionOf(read) &&
                        writers.isIntermediate(key, last))
                    {
                        reportIntermediateRead(transactions, findings, read, writer, last);
                    }
                }
            }
        }
    }

    /** @return the position of the first element written by a failed transaction (or by none), or NOWHERE. */
    private static int scan(final Transactions transactions, final Writers writers, final int read,
        final boolean aborted)
    {
        final int key = transactions.key(read);
        for (int position = 0; position < transactions.readLength(read); position++)
        {
            final int writer = writers.writer(key, transactions.readElement(read, position));
            if (aborted ? writer != Writers.NONE && transactions.isFailed(writer) : writer == Writers.NONE)
            {
                return position;
            }
        }
        return NOWHERE;
    }

    private static String readText(final Transactions transactions, final int read)
    {
        return Describe.label(1, transactions.operation(transactions.transactionOf(read))) + " read " +
            transactions.keyName(transactions.key(read)) + " = " +
            Describe.list(transactions.readList(read));
    }

    private static void reportAbortedRead(
        final Transactions transactions, final Findings findings, final int read, final int writer, final long element)
    {
        findings.add(AnomalyNames.G1A, () ->
        {
            final Operation reader = transactions.operation(transactions.transactionOf(read));
            final Operation failed = transactions.operation(writer);
            return new Witness(AnomalyNames.G1A, List.of(reader, failed), List.of(),
                readText(transactions, read) + ", which holds " + element + ", appended by " +
                Describe.label(2, failed) +
                ", a transaction that failed (aborted read)");
        });
    }

    private static void reportGarbageRead(
        final Transactions transactions, final Findings findings, final int read, final long element)
    {
        findings.add(AnomalyNames.GARBAGE_READ, () ->
        {
            final Operation reader = transactions.operation(transactions.transactionOf(read));
            return new Witness(AnomalyNames.GARBAGE_READ, List.of(reader), List.of(),
                readText(transactions, read) + ", which holds " + element + ", an element no transaction appended");
        });
    }

    private static void reportIntermediateRead(
        final Transactions transactions, final Findings findings, final int read, final int writer, final long element)
    {
        findings.add(AnomalyNames.G1B, () ->
        {
            final Operation reader = transactions.operation(transactions.transactionOf(read));
            final Operation intermediate = transactions.operation(writer);
            return new Witness(AnomalyNames.G1B, List.of(reader, intermediate), List.of(),
                readText(transactions, read) + ", ending at " + element + ", which " + Describe.label(2, intermediate) +
                " appended and then followed with another append to " + transactions.keyName(transactions.key(read)) +
                " in the same transaction (intermediate read)");
        });
    }
}

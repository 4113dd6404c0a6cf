package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;
import org.agrona.collections.LongArrayList;

import java.util.ArrayList;
import java.util.List;

/**
 * A transaction must see its own effects: a read of a key it read before gives that list plus its appends since,
 * and a read after its own appends ends with them.
 */
final class InternalConsistency
{
    private InternalConsistency()
    {
    }

    static void find(final Transactions transactions, final Findings findings)
    {
        final LongArrayList ownAppends = new LongArrayList();
        for (int transaction = 0; transaction < transactions.count(); transaction++)
        {
            if (!transactions.isOk(transaction))
            {
                continue;
            }
            final int first = transactions.first(transaction);
            for (int read = first; read < transactions.end(transaction); read++)
            {
                if (!transactions.isRead(read))
                {
                    continue;
                }
                ownAppends.clear();
                int earlierRead = -1;
                for (int earlier = transactions.previousOnKey(read); earlier >= 0 && earlierRead < 0;
                    earlier = transactions.previousOnKey(earlier))
                {
                    if (transactions.isAppend(earlier))
                    {
                        ownAppends.addLong(0, transactions.element(earlier));
                    }
                    else
                    {
                        earlierRead = earlier;
                    }
                }
                if (earlierRead >= 0 && !isEarlierReadPlusAppends(transactions, read, earlierRead, ownAppends))
                {
                    report(transactions, findings, read, earlierRead, expected(transactions, earlierRead, ownAppends));
                }
                else if (earlierRead < 0 && !endsWith(transactions, read, ownAppends))
                {
                    report(transactions, findings, read, earlierRead, ownAppends.toString());
                }
            }
        }
    }

    private static boolean isEarlierReadPlusAppends(
        final Transactions transactions, final int read, final int earlierRead, final LongArrayList ownAppends)
    {
        final int earlierLength = transactions.readLength(earlierRead);
        if (transactions.readLength(read) != earlierLength + ownAppends.size())
        {
            return false;
        }
        for (int i = 0; i < earlierLength; i++)
        {
            if (transactions.readElement(read, i) != transactions.readElement(earlierRead, i))
            {
                return false;
            }
        }
        return endsWith(transactions, read, ownAppends);
    }

    private static boolean endsWith(final Transactions transactions, final int read, final LongArrayList ownAppends)
    {
        final int offset = transactions.readLength(read) - ownAppends.size();
        if (offset < 0)
        {
            return false;
        }
        for (int i = 0; i < ownAppends.size(); i++)
        {
            if (transactions.readElement(read, offset + i) != ownAppends.getLong(i))
            {
                return false;
            }
        }
        return true;
    }

    private static String expected(final Transactions transactions, final int earlierRead,
        final LongArrayList ownAppends)
    {
        final List<Object> expected = new ArrayList<>(transactions.readList(earlierRead));
        expected.addAll(ownAppends);
        return Describe.list(expected);
    }

    private static void report(
        final Transactions transactions, final Findings findings, final int read, final int earlierRead,
        final String expected)
    {
        final LongArrayList appends = new LongArrayList();
        for (int earlier = transactions.previousOnKey(read); earlier >= 0 && earlier != earlierRead;
            earlier = transactions.previousOnKey(earlier))
        {
            appends.addLong(0, transactions.element(earlier));
        }
        findings.add(AnomalyNames.INTERNAL, () ->
        {
            final Operation transaction = transactions.operation(transactions.transactionOf(read));
            final String key = transactions.keyName(transactions.key(read));
            final String before = earlierRead >= 0 ?
                "after reading " + key + " = " + Describe.list(transactions.readList(earlierRead)) +
                (appends.isEmpty() ? "" : " and appending " + appends) + ", so it should have read " + expected :
                "after appending " + appends + " to it, so the list should have ended with " + expected;
            return new Witness(AnomalyNames.INTERNAL, List.of(transaction), List.of(),
                Describe.label(1, transaction) + " read " + key + " = " + Describe.list(transactions.readList(read)) +
                " " + before + " (internal inconsistency)");
        });
    }
}

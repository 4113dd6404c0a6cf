package io.dkv.checker.elle;

import io.dkv.checker.history.Operation;
import org.agrona.collections.Long2LongHashMap;

import java.util.List;

/**
 * Which transaction appended each element of each key, whatever its outcome, and whether that append was an
 * intermediate one (the same transaction appended to the key again afterwards).
 *
 * <p>Elements are meant to be unique per key; an element appended twice is reported as duplicate-elements and
 * credited to its first writer.
 */
final class Writers
{
    static final int NONE = -1;
    private static final long INTERMEDIATE = 1;

    private final Long2LongHashMap[] byKey;

    private Writers(final Long2LongHashMap[] byKey)
    {
        this.byKey = byKey;
    }

    static Writers of(final Transactions transactions, final Findings findings)
    {
        final Long2LongHashMap[] byKey = new Long2LongHashMap[transactions.keyCount()];
        for (int key = 0; key < byKey.length; key++)
        {
            byKey[key] = new Long2LongHashMap(NONE);
        }
        for (int transaction = 0; transaction < transactions.count(); transaction++)
        {
            final int end = transactions.end(transaction);
            for (int microOp = transactions.first(transaction); microOp < end; microOp++)
            {
                if (transactions.isAppend(microOp))
                {
                    final int key = transactions.key(microOp);
                    final long element = transactions.element(microOp);
                    final long previous = byKey[key].get(element);
                    if (previous != NONE)
                    {
                        reportDuplicate(transactions, findings, (int)(previous >>> 1), transaction, key, element);
                    }
                    else
                    {
                        byKey[key].put(element, (long)transaction << 1);
                    }
                    markIntermediate(transactions, byKey[key], transaction, microOp);
                }
            }
        }
        return new Writers(byKey);
    }

    /** The transaction's previous append to the key, if any, was an intermediate one. */
    private static void markIntermediate(
        final Transactions transactions, final Long2LongHashMap writers, final int transaction, final int append)
    {
        int earlier = transactions.previousOnKey(append);
        while (earlier >= 0 && !transactions.isAppend(earlier))
        {
            earlier = transactions.previousOnKey(earlier);
        }
        if (earlier >= 0)
        {
            final long element = transactions.element(earlier);
            if (writers.get(element) == (long)transaction << 1)
            {
                writers.put(element, (long)transaction << 1 | INTERMEDIATE);
            }
        }
    }

    private static void reportDuplicate(
        final Transactions transactions,
        final Findings findings,
        final int first,
        final int second,
        final int key,
        final long element)
    {
        findings.add(AnomalyNames.DUPLICATE_ELEMENTS, () ->
        {
            final Operation firstWriter = transactions.operation(first);
            final Operation secondWriter = transactions.operation(second);
            final String text = first == second ?
                Describe.label(1, firstWriter) + " appended " + element + " to " + transactions.keyName(key) +
                " twice" :
                Describe.label(1, firstWriter) + " and " + Describe.label(2, secondWriter) + " both appended " +
                element +
                " to " + transactions.keyName(key);
            return new Witness(
                AnomalyNames.DUPLICATE_ELEMENTS,
                first == second ? List.of(firstWriter) : List.of(firstWriter, secondWriter),
                List.of(), text);
        });
    }

    /** @return the transaction that appended the element to the key, or {@link #NONE}. */
    int writer(final int key, final long element)
    {
        final long entry = byKey[key].get(element);
        return entry == NONE ? NONE : (int)(entry >>> 1);
    }

    /** @return true when the element's writer appended to the key again after it. */
    boolean isIntermediate(final int key, final long element)
    {
        final long entry = byKey[key].get(element);
        return entry != NONE && (entry & INTERMEDIATE) != 0;
    }
}

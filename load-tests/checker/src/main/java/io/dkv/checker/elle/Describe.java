package io.dkv.checker.elle;

import io.dkv.checker.history.Op;
import io.dkv.checker.history.Operation;

import java.util.List;

/**
 * Words for witnesses: transactions by label and history index, lists shortened so that reports stay readable
 * when keys hold hundreds of elements.
 */
final class Describe
{
    private static final int WHOLE_LIST_LIMIT = 8;
    private static final int ENDS_SHOWN = 3;

    private Describe()
    {
    }

    /** @return e.g. {@code T2 (#17)}: the label within the witness and the index of the invocation event. */
    static String label(final int number, final Operation transaction)
    {
        return "T" + number + " (#" + transaction.invoke().index() + ")";
    }

    /** @return the transaction on one line: process, outcome, times, micro-operations with long lists shortened. */
    static String transaction(final Operation transaction)
    {
        final StringBuilder text = new StringBuilder(96)
            .append('p').append(transaction.process()).append(' ').append(transaction.outcome().jsonName())
            .append(" [").append(transaction.invokeTime()).append(", ")
            .append(transaction.isIndeterminate() ? "never" : Long.toString(transaction.completeTime())).append("]: ");
        if (transaction.value() instanceof List<?> microOps)
        {
            String separator = "";
            for (final Object microOp : microOps)
            {
                text.append(separator);
                separator = ", ";
                if (microOp instanceof List<?> parts && parts.size() == 3)
                {
                    text.append(parts.get(0)).append(' ').append(parts.get(1)).append(' ');
                    final Object value = parts.get(2);
                    if (Op.READ_LIST.equals(parts.get(0)))
                    {
                        text.append(value instanceof List<?> list ? list(list) : transaction.isOk() ? "[]" : "?");
                    }
                    else
                    {
                        text.append(value);
                    }
                }
                else
                {
                    text.append(microOp);
                }
            }
        }
        return text.toString();
    }

    static String list(final List<?> list)
    {
        final StringBuilder text = new StringBuilder("[");
        final int size = list.size();
        for (int i = 0; i < size; i++)
        {
            if (size > WHOLE_LIST_LIMIT && i == ENDS_SHOWN)
            {
                text.append("... ");
                i = size - ENDS_SHOWN;
            }
            text.append(list.get(i)).append(i == size - 1 ? "" : ", ");
        }
        text.append(']');
        return size > WHOLE_LIST_LIMIT ? text + " (" + size + " elements)" : text.toString();
    }

    /** @return the first {@code length} elements of a version order, as a read of them would show. */
    static String prefix(final long[] order, final int length)
    {
        final StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < length; i++)
        {
            if (length > WHOLE_LIST_LIMIT && i == ENDS_SHOWN)
            {
                text.append("... ");
                i = length - ENDS_SHOWN;
            }
            text.append(order[i]).append(i == length - 1 ? "" : ", ");
        }
        text.append(']');
        return length > WHOLE_LIST_LIMIT ? text + " (" + length + " elements)" : text.toString();
    }
}

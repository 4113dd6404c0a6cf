package io.dkv.client.txn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the clients saw of a run: each operation's invocation, answer, reads and writes, and its real-time order.
 * Real time is kept as precedence bits set at each invocation (every operation already answered ok or failed comes
 * before it), not as a step counter: the order is the same, and states that differ only in when things happened, not
 * in what happened in which order, stay one state.
 *
 * @param ops        the operations, in the scope's order (coordinators, then the reader's, then the writer's).
 * @param precedence bit {@code a * 8 + b} set when operation a answered before b was invoked.
 */
record TxnHistory(List<Op> ops, long precedence)
{
    static final int MAX_OPS = 8;

    static TxnHistory of(final int operations)
    {
        if (operations > MAX_OPS)
        {
            throw new IllegalArgumentException("too many operations: " + operations);
        }
        return new TxnHistory(Collections.nCopies(operations, Op.NOT_YET), 0L);
    }

    int size()
    {
        return ops.size();
    }

    Op op(final int op)
    {
        return ops.get(op);
    }

    boolean precedes(final int a, final int b)
    {
        return (precedence & (1L << (a * MAX_OPS + b))) != 0;
    }

    /** Invoking an operation orders it after every operation that has answered ok or failed. */
    TxnHistory invoke(final int op, final Op invoked)
    {
        long bits = precedence;
        for (int before = 0; before < size(); before++)
        {
            if (op(before).answered())
            {
                bits |= 1L << (before * MAX_OPS + op);
            }
        }
        return new TxnHistory(with(op, invoked).ops, bits);
    }

    TxnHistory with(final int op, final Op next)
    {
        final List<Op> list = new ArrayList<>(ops);
        list.set(op, next);
        return new TxnHistory(List.copyOf(list), precedence);
    }

    String describe(final TxnScope scope)
    {
        final StringBuilder out = new StringBuilder();
        for (int op = 0; op < size(); op++)
        {
            out.append(op == 0 ? "" : "; ").append(scope.opName(op)).append(' ').append(op(op).describe());
            for (int before = 0; before < size(); before++)
            {
                if (precedes(before, op))
                {
                    out.append(" after ").append(scope.opName(before));
                }
            }
        }
        return out.toString();
    }
}

package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Hand-written list-append histories: each transaction with its own process (its number identifies it in
 * assertions) and explicit invocation and completion times.
 */
final class TxnHistory
{
    private record Event(long time, int sequence, Op op)
    {
    }

    private final List<Event> events = new ArrayList<>();
    private int nextProcess;

    static List<Object> append(final String key, final long element)
    {
        return List.of(Op.APPEND, key, element);
    }

    /** A read that saw these elements (a list, possibly empty). */
    static List<Object> read(final String key, final long... elements)
    {
        final List<Object> list = new ArrayList<>(elements.length);
        for (final long element : elements)
        {
            list.add(element);
        }
        return Arrays.asList(Op.READ_LIST, key, list);
    }

    /** A read of a key nobody appended to yet: null rather than a list. */
    static List<Object> readAbsent(final String key)
    {
        return Arrays.asList(Op.READ_LIST, key, null);
    }

    /** @return the transaction's process. */
    int ok(final long invokeTime, final long completeTime, final List<?>... microOps)
    {
        return add(OpType.OK, invokeTime, completeTime, microOps);
    }

    int fail(final long invokeTime, final long completeTime, final List<?>... microOps)
    {
        return add(OpType.FAIL, invokeTime, completeTime, microOps);
    }

    /** @param completeTime when the info came, or -1 for a history that ends before it. */
    int info(final long invokeTime, final long completeTime, final List<?>... microOps)
    {
        return add(OpType.INFO, invokeTime, completeTime, microOps);
    }

    private int add(final OpType outcome, final long invokeTime, final long completeTime, final List<?>... microOps)
    {
        final int process = nextProcess++;
        final List<Object> invocation = new ArrayList<>(microOps.length);
        for (final List<?> microOp : microOps)
        {
            invocation.add(Op.READ_LIST.equals(microOp.get(0)) ? Arrays.asList(Op.READ_LIST, microOp.get(1), null) :
                microOp);
        }
        final Op invoke = new Op(0, OpType.INVOKE, process, Op.TXN, null, invocation, invokeTime, null);
        events.add(new Event(invokeTime, events.size(), invoke));
        if (completeTime >= 0)
        {
            final Object value = outcome == OpType.OK ? List.of(microOps) : invocation;
            events.add(new Event(completeTime, events.size(),
                new Op(0, outcome, process, Op.TXN, null, value, completeTime,
                    outcome == OpType.OK ? null : "unknown")));
        }
        return process;
    }

    History history()
    {
        final List<Event> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.comparingLong(Event::time).thenComparingInt(Event::sequence));
        return History.of(sorted.stream().map(Event::op).toList());
    }
}

package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Builds register histories by hand: each operation on a process of its own, with explicit invocation and
 * completion times; the events are put in time order (times should differ).
 */
final class TestHistory
{
    private final List<Op> events = new ArrayList<>();
    private int nextProcess;

    TestHistory write(final String key, final Long value, final long invoked, final long completed)
    {
        return add(Op.WRITE, key, value, value, OpType.OK, invoked, completed);
    }

    TestHistory writeInfo(final String key, final Long value, final long invoked, final long completed)
    {
        return add(Op.WRITE, key, value, value, OpType.INFO, invoked, completed);
    }

    /** A write whose invocation is all the history tells. */
    TestHistory writeUnfinished(final String key, final Long value, final long invoked)
    {
        return add(Op.WRITE, key, value, value, null, invoked, 0);
    }

    TestHistory read(final String key, final Long value, final long invoked, final long completed)
    {
        return add(Op.READ, key, null, value, OpType.OK, invoked, completed);
    }

    TestHistory readInfo(final String key, final long invoked, final long completed)
    {
        return add(Op.READ, key, null, null, OpType.INFO, invoked, completed);
    }

    TestHistory cas(final String key, final Long expected, final Long newValue, final long invoked,
        final long completed)
    {
        return add(Op.CAS, key, pair(expected, newValue), pair(expected, newValue), OpType.OK, invoked, completed);
    }

    TestHistory casFailed(final String key, final Long expected, final Long newValue, final long invoked,
        final long completed)
    {
        return add(Op.CAS, key, pair(expected, newValue), pair(expected, newValue), OpType.FAIL, invoked, completed);
    }

    TestHistory casInfo(final String key, final Long expected, final Long newValue, final long invoked,
        final long completed)
    {
        return add(Op.CAS, key, pair(expected, newValue), pair(expected, newValue), OpType.INFO, invoked, completed);
    }

    /** @param outcome ok, fail, info, or null for no completion. */
    TestHistory add(
        final String f,
        final String key,
        final Object invokeValue,
        final Object completionValue,
        final OpType outcome,
        final long invoked,
        final long completed)
    {
        final int process = nextProcess++;
        events.add(new Op(0, OpType.INVOKE, process, f, key, invokeValue, invoked, null));
        if (outcome != null)
        {
            events.add(new Op(0, outcome, process, f, key, outcome == OpType.OK ? completionValue : invokeValue,
                completed,
                outcome == OpType.OK ? null : "test"));
        }
        return this;
    }

    History history()
    {
        final List<Op> inTimeOrder = new ArrayList<>(events);
        inTimeOrder.sort(Comparator.comparingLong(Op::time));
        return History.of(inTimeOrder);
    }

    private static List<Long> pair(final Long expected, final Long newValue)
    {
        return Arrays.asList(expected, newValue);
    }
}

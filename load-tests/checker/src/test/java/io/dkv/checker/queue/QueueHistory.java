package io.dkv.checker.queue;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Hand-written queue histories: each operation with its own process and explicit invocation and completion times.
 */
final class QueueHistory
{
    private record Event(long time, int sequence, Op op)
    {
    }

    private final List<Event> events = new ArrayList<>();
    private int nextProcess;

    QueueHistory enqueue(final OpType outcome, final long invokeTime, final long completeTime, final String key,
        final long element)
    {
        return add(outcome, invokeTime, completeTime, QueueChecker.ENQUEUE, key, element, element);
    }

    /** A dequeue ok that took the element. */
    QueueHistory dequeued(final long invokeTime, final long completeTime, final String key, final long element)
    {
        return add(OpType.OK, invokeTime, completeTime, QueueChecker.DEQUEUE, key, null, element);
    }

    /** A dequeue ok that found nothing before its timeout. */
    QueueHistory dequeuedNothing(final long invokeTime, final long completeTime, final String key)
    {
        return add(OpType.OK, invokeTime, completeTime, QueueChecker.DEQUEUE, key, null, null);
    }

    /** @param completeTime when the info came, or -1 for a history that ends before it. */
    QueueHistory dequeueUnknown(final long invokeTime, final long completeTime, final String key)
    {
        return add(OpType.INFO, invokeTime, completeTime, QueueChecker.DEQUEUE, key, null, null);
    }

    QueueHistory drained(final long invokeTime, final long completeTime, final String key, final long... elements)
    {
        final List<Object> list = new ArrayList<>(elements.length);
        for (final long element : elements)
        {
            list.add(element);
        }
        return add(OpType.OK, invokeTime, completeTime, QueueChecker.DRAIN, key, null, list);
    }

    History history()
    {
        final List<Op> ops = new ArrayList<>(events.size());
        events.stream().sorted(Comparator.comparingLong(Event::time).thenComparingInt(Event::sequence))
            .forEach(event -> ops.add(event.op()));
        return History.of(ops);
    }

    private QueueHistory add(
        final OpType outcome,
        final long invokeTime,
        final long completeTime,
        final String f,
        final String key,
        final Object invokeValue,
        final Object completeValue)
    {
        final int process = nextProcess++;
        events.add(new Event(invokeTime, events.size(), new Op(0, OpType.INVOKE, process, f, key, invokeValue,
            invokeTime, null)));
        if (completeTime >= 0)
        {
            events.add(new Event(completeTime, events.size(), new Op(0, outcome, process, f, key,
                outcome == OpType.OK ? completeValue : invokeValue, completeTime,
                outcome == OpType.OK ? null : "timed out")));
        }
        return this;
    }
}

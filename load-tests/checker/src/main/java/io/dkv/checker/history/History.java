package io.dkv.checker.history;

import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A history: events in the order they happened, checked to be well formed (each process invokes
 * one operation at a time and completes it before the next; a process whose operation ended in
 * info invokes nothing more; times never go back).
 */
public final class History
{
    private final List<Op> ops;
    private final List<Operation> operations;

    private History(final List<Op> ops, final List<Operation> operations)
    {
        this.ops = ops;
        this.operations = operations;
    }

    /**
     * @param events the events in the order they happened; their indices are set to their positions.
     * @throws IllegalArgumentException naming the first event that makes the history malformed.
     */
    public static History of(final List<Op> events)
    {
        final List<Op> ops = new ArrayList<>(events.size());
        final List<Operation> operations = new ArrayList<>(events.size() / 2 + 1);
        final Int2ObjectHashMap<Op> open = new Int2ObjectHashMap<>();
        final Int2IntHashMap openPosition = new Int2IntHashMap(-1);
        final IntHashSet crashed = new IntHashSet();
        long lastTime = Long.MIN_VALUE;
        for (final Op event : events)
        {
            final Op op = event.withIndex(ops.size());
            if (op.time() < lastTime)
            {
                throw new IllegalArgumentException("time goes back at " + op + ": the previous event was at " +
                    lastTime);
            }
            lastTime = op.time();
            if (op.isInvoke())
            {
                if (crashed.contains(op.process()))
                {
                    throw new IllegalArgumentException("process " + op.process() + " invokes " + op +
                        " after an operation of it ended in info; a new process must take its place");
                }
                if (open.containsKey(op.process()))
                {
                    throw new IllegalArgumentException("process " + op.process() + " invokes " + op + " while " +
                        open.get(op.process()) + " has not completed");
                }
                open.put(op.process(), op);
                openPosition.put(op.process(), operations.size());
                operations.add(null);
            }
            else
            {
                final Op invoke = open.remove(op.process());
                if (invoke == null)
                {
                    throw new IllegalArgumentException(op + " completes nothing: process " + op.process() +
                        " has no open invocation");
                }
                if (!invoke.f().equals(op.f()) || !Objects.equals(invoke.key(), op.key()))
                {
                    throw new IllegalArgumentException(op + " does not complete " + invoke +
                        ": function or key differ");
                }
                operations.set(openPosition.remove(op.process()), new Operation(invoke, op));
                if (op.type() == OpType.INFO)
                {
                    crashed.add(op.process());
                }
            }
            ops.add(op);
        }
        open.forEach((process, invoke) -> operations.set(openPosition.get(process), new Operation(invoke, null)));
        return new History(Collections.unmodifiableList(ops), Collections.unmodifiableList(operations));
    }

    /** @return every event, in order. */
    public List<Op> ops()
    {
        return ops;
    }

    /** @return every operation in the order of its invocation. */
    public List<Operation> operations()
    {
        return operations;
    }

    /**
     * @return the operations on each key (in invocation order), keys in the order first seen; transactions left out.
     */
    public Map<String, List<Operation>> byKey()
    {
        final Map<String, List<Operation>> byKey = new LinkedHashMap<>();
        for (final Operation operation : operations)
        {
            if (operation.key() != null)
            {
                byKey.computeIfAbsent(operation.key(), key -> new ArrayList<>()).add(operation);
            }
        }
        return byKey;
    }

    public int size()
    {
        return ops.size();
    }
}

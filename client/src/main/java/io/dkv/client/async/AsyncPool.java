package io.dkv.client.async;

import io.dkv.client.KvClientContext;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Raas;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A thread's operations carried by completions, of one kind ({@link AsyncGets}, {@link AsyncWrites}): up to a bound in
 * flight at once, made as first needed, each in a place of its own, the connection to each node they go through, and
 * the handler that passes each completion to its operation. The owning thread takes a free one and opens
 * connections; completions (on whichever thread delivers them) give it back.
 *
 * @param <T> the operation.
 */
abstract class AsyncPool<T extends AsyncOperation> implements CompletionHandler, AutoCloseable
{
    private final int bound;
    private final Raas raas;
    private final NanoClock nanoClock;
    private final AsyncSlowPath slowPath;
    private final AtomicReferenceArray<T> operations;
    private final ManyToOneConcurrentArrayQueue<T> free;
    private final AsyncConnections connections;
    private int created;
    private int sequence;

    /**
     * @param bound    operations in flight at once: 0 sends every operation to the slow path.
     * @param slowPath where an operation goes that its completions cannot carry, on one of the client's threads.
     */
    AsyncPool(final int bound, final Raas raas, final KvClientContext context, final AsyncSlowPath slowPath)
    {
        this.bound = bound;
        this.raas = raas;
        this.nanoClock = context.nanoClock();
        this.slowPath = slowPath;
        this.operations = new AtomicReferenceArray<>(bound);
        // a queue holds at least one: a bound of 0 (too few credits) makes none, every operation the slow path's
        this.free = new ManyToOneConcurrentArrayQueue<>(Math.max(1, bound));
        this.connections = new AsyncConnections(raas, this);
    }

    /** @return a new operation for place {@code index}. */
    abstract T create(int index);

    /** Owner: @return a free operation, or null when the bound are in flight. */
    public final T acquire()
    {
        final T operation = free.poll();
        if (operation != null || created == bound)
        {
            return operation;
        }
        final T made = create(created);
        operations.set(created++, made);
        return made;
    }

    /** Owner: @return the number that tells this operation's completions from those of every other. */
    final int nextSequence()
    {
        return ++sequence;
    }

    /** @return the operation in place {@code index} now, or null. */
    final T operation(final int index)
    {
        return operations.get(index);
    }

    /** @return the connections to the nodes, which the owner opens and completions mark failed or moved. */
    public final AsyncConnections connections()
    {
        return connections;
    }

    public final void release(final T operation)
    {
        free.offer(operation);
    }

    /** An operation that may still have a request in flight writing its buffers: another takes its place. */
    final void retire(final T operation)
    {
        final T replacement = create(operation.index);
        operations.set(operation.index, replacement);
        free.offer(replacement);
    }

    final AsyncSlowPath slowPath()
    {
        return slowPath;
    }

    /** @return operations finished by their completions alone, of those not in flight. */
    public final long answered()
    {
        long answered = 0;
        for (int i = 0; i < operations.length(); i++)
        {
            final T operation = operations.get(i);
            answered += operation == null ? 0 : operation.answered;
        }
        return answered;
    }

    final long nanoTime()
    {
        return nanoClock.nanoTime();
    }

    final MemorySegment allocateBuffer(final int size)
    {
        return raas.allocateBuffer(size);
    }

    /** Owner (the client closing): the connections close, and operations in flight on them fail to the slow path. */
    public final void close()
    {
        connections.close();
    }
}

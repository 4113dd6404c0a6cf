package io.dkv.client;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Raas;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A thread's {@link AsyncWrite}s: up to {@link #IN_FLIGHT} writes it has in flight at once, the connection to each
 * node they go through, and the handler that passes each completion to its write. The owning thread takes a free
 * one and opens connections; completions (on whichever thread delivers them) give it back. Past the bound, writes
 * go to the client's threads.
 */
final class AsyncWrites implements CompletionHandler, AutoCloseable
{
    /**
     * Writes in flight at once: a write's first round holds three requests of each replica's connection (the block
     * and two buckets), which must never wait for a credit (the thread delivering completions posts the next round,
     * and would wait for itself), so this is a third of the driver's default credits per connection, rounded down.
     */
    static final int IN_FLIGHT = 16;

    private final Raas raas;
    private final NanoClock nanoClock;
    private final long timeoutMs;
    private final int replicas;
    private final boolean durable;
    private final MembershipView membership;
    private final AsyncSlowPath slowPath;
    private final AtomicReferenceArray<AsyncWrite> writes = new AtomicReferenceArray<>(IN_FLIGHT);
    private final ManyToOneConcurrentArrayQueue<AsyncWrite> free = new ManyToOneConcurrentArrayQueue<>(IN_FLIGHT);
    private final AsyncConnections connections;
    private int created;
    private int sequence;

    /**
     * @param slowPath where a write goes that its completions cannot carry: the synchronous write, or the rest of
     *                 its chain, on one of the client's threads.
     */
    AsyncWrites(final Raas raas, final KvClientContext context, final MembershipView membership,
        final AsyncSlowPath slowPath)
    {
        this.raas = raas;
        this.nanoClock = context.nanoClock();
        this.timeoutMs = context.timeoutMs();
        this.replicas = Math.max(1, membership.replicas());
        this.durable = context.durability() != Durability.NONE;
        this.membership = membership;
        this.slowPath = slowPath;
        this.connections = new AsyncConnections(raas, this);
    }

    /** Owner: @return a free write, or null when {@link #IN_FLIGHT} are in flight. */
    AsyncWrite acquire()
    {
        final AsyncWrite write = free.poll();
        if (write != null || created == IN_FLIGHT)
        {
            return write;
        }
        final AsyncWrite made = new AsyncWrite(created, this, raas, replicas, timeoutMs);
        writes.set(created++, made);
        return made;
    }

    /** Owner: @return the number that tells this write's completions from those of every other. */
    int nextSequence()
    {
        return ++sequence;
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        final AsyncWrite write = writes.get((int)(token >>> 40));
        if (write != null && write.isToken(token))
        {
            write.onCompletion((int)(token >>> 32) & 0xff, status, value);
        }
    }

    /** @return the connections to the nodes, which the owner opens and completions mark failed or moved. */
    AsyncConnections connections()
    {
        return connections;
    }

    void release(final AsyncWrite write)
    {
        free.offer(write);
    }

    /** A write that may still have a request in flight writing its buffers: another takes its place. */
    void retire(final AsyncWrite write)
    {
        final AsyncWrite replacement = new AsyncWrite(write.index, this, raas, replicas, timeoutMs);
        writes.set(write.index, replacement);
        free.offer(replacement);
    }

    AsyncSlowPath slowPath()
    {
        return slowPath;
    }

    /** @return true when a write tells the nodes (the client's durability is not NONE). */
    boolean durable()
    {
        return durable;
    }

    long epoch()
    {
        return membership.epoch();
    }

    /** @return writes finished by their completions alone, of writes that are not in flight. */
    long answered()
    {
        long answered = 0;
        for (int i = 0; i < writes.length(); i++)
        {
            final AsyncWrite write = writes.get(i);
            answered += write == null ? 0 : write.answered;
        }
        return answered;
    }

    long nanoTime()
    {
        return nanoClock.nanoTime();
    }

    MemorySegment allocateBuffer(final int size)
    {
        return raas.allocateBuffer(size);
    }

    /** Owner (the client closing): the connections close, and writes in flight on them fail to the slow path. */
    public void close()
    {
        connections.close();
    }
}

package io.dkv.client;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Raas;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A thread's {@link AsyncGet}s: up to {@link #IN_FLIGHT} GETs it has in flight at once, each node's
 * connection they read through, and the handler that passes each completion to its GET. The owning
 * thread takes a free one and opens connections; completions (on whichever thread delivers them)
 * give it back. Past the bound, GETs go to the client's threads.
 */
final class AsyncGets implements CompletionHandler, AutoCloseable
{
    /**
     * GETs in flight at once: a GET holds at most two requests of its node's connection, which must never wait for
     * a credit (the thread delivering completions posts the next step, and would wait for itself), so this is half
     * the driver's default credits per connection.
     */
    static final int IN_FLIGHT = 32;

    private final Raas raas;
    private final NanoClock nanoClock;
    private final long timeoutMs;
    private final AsyncSlowPath slowPath;
    private final AtomicReferenceArray<AsyncGet> gets = new AtomicReferenceArray<>(IN_FLIGHT);
    private final ManyToOneConcurrentArrayQueue<AsyncGet> free = new ManyToOneConcurrentArrayQueue<>(IN_FLIGHT);
    private final AsyncConnections connections;
    private int created;
    private int sequence;

    /**
     * @param slowPath answers a GET the completions could not: the synchronous GET on one of the client's threads.
     */
    AsyncGets(final Raas raas, final KvClientContext context, final AsyncSlowPath slowPath)
    {
        this.raas = raas;
        this.nanoClock = context.nanoClock();
        this.timeoutMs = context.timeoutMs();
        this.slowPath = slowPath;
        this.connections = new AsyncConnections(raas, this);
    }

    /** Owner: @return a free GET, or null when {@link #IN_FLIGHT} are in flight. */
    AsyncGet acquire()
    {
        final AsyncGet get = free.poll();
        if (get != null || created == IN_FLIGHT)
        {
            return get;
        }
        final AsyncGet made = new AsyncGet(created, this, raas, timeoutMs);
        gets.set(created++, made);
        return made;
    }

    /** Owner: @return the number that tells this GET's completions from those of every other. */
    int nextSequence()
    {
        return ++sequence;
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        final AsyncGet get = gets.get((int)(token >>> 32));
        if (get != null && get.isToken(token))
        {
            get.onCompletion(status);
        }
    }

    /** @return the connections to the nodes, which the owner opens and completions mark failed or moved. */
    AsyncConnections connections()
    {
        return connections;
    }

    void release(final AsyncGet get)
    {
        free.offer(get);
    }

    /** A GET that may still have a request in flight writing its buffers: another takes its place. */
    void retire(final AsyncGet get)
    {
        final AsyncGet replacement = new AsyncGet(get.index, this, raas, timeoutMs);
        gets.set(get.index, replacement);
        free.offer(replacement);
    }

    void fallBack(final int kind, final byte[] key, final CompletableFuture<Object> future)
    {
        slowPath.get(kind, key, future);
    }

    /** @return GETs answered by their completions alone, of GETs that are not in flight. */
    long answered()
    {
        long answered = 0;
        for (int i = 0; i < gets.length(); i++)
        {
            final AsyncGet get = gets.get(i);
            answered += get == null ? 0 : get.answered;
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

    /** Owner (the client closing): the connections close, and GETs in flight on them fail to the slow path. */
    public void close()
    {
        connections.close();
    }
}

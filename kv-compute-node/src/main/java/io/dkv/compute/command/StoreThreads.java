package io.dkv.compute.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Threads that run a request's store work where the client has no asynchronous form for it (an MSET's transaction,
 * a DEL of several keys, the commands of hashes, sets, sorted sets and lists: {@link OffloadedCommands}), so that
 * the connection's event loop does not wait for it: the request leaves an {@link AsyncStep} whose operation is the
 * work, and the loop serves its other connections meanwhile. Each thread waits on the store most of its run and
 * keeps a client session of its own. Daemons started with the first request, as the script threads: a node that
 * closes does not wait for them.
 */
final class StoreThreads
{
    /** Threads at most, of each kind: each carries one request's store work at a time. */
    static final int THREADS = Integer.getInteger("dkv.compute.store.threads",
        Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    /** For the work of several keys (an MSET's transaction): any free thread takes it. */
    private final ExecutorService anyKey;
    /**
     * For the work of one key, by the key's hash: one key's steps run one after the other on one thread, whichever
     * connections sent them, so that they do not race one another's transactions into conflicts and retries (a hot
     * key: a list or a sorted set every client pushes to); other keys' go on beside them.
     */
    private final ExecutorService[] byKey = new ExecutorService[THREADS];
    private final NodeStats stats;

    /** @param stats where the work run here is counted. */
    StoreThreads(final NodeStats stats)
    {
        this.stats = stats;
        final AtomicInteger count = new AtomicInteger();
        final java.util.concurrent.ThreadFactory factory = task ->
        {
            final Thread thread = new StoreThread(task, "dkv-store-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.anyKey = Executors.newFixedThreadPool(THREADS, factory);
        for (int i = 0; i < byKey.length; i++)
        {
            byKey[i] = Executors.newSingleThreadExecutor(factory);
        }
    }

    /**
     * @return true on one of the store threads: the work there waits on the store itself, so nothing it runs goes out
     * as a step again.
     */
    static boolean onStoreThread()
    {
        return Thread.currentThread() instanceof StoreThread;
    }

    /**
     * Run {@code work} (which writes the request's reply) on a store thread, as the step of the request being run.
     * Only where {@link Session#mayAwait(io.dkv.compute.store.KeyStore)} said so.
     *
     * @param key the one key the work touches, or null when it touches several: every request after it waits.
     */
    void offload(final Session session, final byte[] key, final Consumer<ByteBuf> work)
    {
        stats.storeThreadStep();
        final CompletableFuture<ByteBuf> done = CompletableFuture.supplyAsync(() ->
        {
            final ByteBuf reply = Unpooled.buffer();
            try
            {
                work.accept(reply);
                return reply;
            }
            catch (final RuntimeException ex)
            {
                reply.release();
                throw ex;
            }
        }, key == null ? anyKey : byKey[Math.floorMod(Arrays.hashCode(key), byKey.length)]);
        session.await(done, (reply, failure, out) ->
        {
            if (failure != null)
            {
                // the command's own exception, which the table answers as it answers a command's
                throw AsyncStep.unchecked(failure);
            }
            out.writeBytes(reply);
            reply.release();
        }, key);
    }

    /**
     * @return {@code work} run on a store thread, for the work of several keys that a request carried by completions
     * found it must wait for (an MSET over a collection), the request's step going on meanwhile.
     */
    <T> CompletableFuture<T> supply(final java.util.function.Supplier<T> work)
    {
        stats.storeThreadStep();
        return CompletableFuture.supplyAsync(work, anyKey);
    }

    /**
     * @return where work of no request's step runs, not counted as requests' steps: the pieces of a string a reply
     * streams read ahead, a long argument's pieces written as it arrives.
     */
    Executor background()
    {
        return anyKey;
    }

    /** Run {@code work} on a store thread, no request's step: what a request left to finish off its loop. */
    void execute(final Runnable work)
    {
        stats.storeThreadStep();
        anyKey.execute(work);
    }

    /** Marks the threads, so that {@link #onStoreThread()} costs a type check. */
    private static final class StoreThread extends Thread
    {
        StoreThread(final Runnable task, final String name)
        {
            super(task, name);
        }
    }
}

package io.dkv.compute.command;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Admits a node's transactions carried by completions (an MSET's) a few at a time, the rest waiting in arrival order,
 * as the store threads admitted them when each ran on one: transactions over shared keys that all run at once abort
 * one another more than they get done (50 connections of pipelined MSETs over 2,000 keys over tcp, all admitted, took
 * minutes where the store threads' 4 at a time took 60 s). A waiting one costs no thread: it is started from its
 * connection's event loop once one before it completes. Used from any thread.
 */
final class CarriedTransactions
{
    private final int limit;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int running;

    /** @param limit transactions running at once, at most. */
    CarriedTransactions(final int limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("at least one transaction runs at once; the limit given is " + limit);
        }
        this.limit = limit;
    }

    /**
     * Start a transaction now, where fewer than the limit run, else once one ends.
     *
     * @param loop  the event loop it is started from when it waited: the thread that ended the one before delivers
     *              the client's completions, and must not post.
     * @param start starts the transaction (on this thread, or on {@code loop}).
     * @return completes as the transaction does.
     */
    <T> CompletableFuture<T> admit(final Executor loop, final Supplier<CompletableFuture<T>> start)
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Runnable go = starting(start, result, this::release);
        final boolean now;
        synchronized (this)
        {
            now = running < limit;
            if (now)
            {
                running++;
            }
            else
            {
                waiting.add(() -> loop.execute(go));
            }
        }
        if (now)
        {
            go.run();
        }
        return result;
    }

    /**
     * @return what starts a transaction admitted: {@code start} run, and {@code result} completed as the transaction
     * is once {@code release} let the next in (also where {@code start} threw).
     */
    static <T> Runnable starting(final Supplier<CompletableFuture<T>> start, final CompletableFuture<T> result,
        final Runnable release)
    {
        return () ->
        {
            final CompletableFuture<T> started;
            try
            {
                started = start.get();
            }
            catch (final RuntimeException ex)
            {
                release.run();
                result.completeExceptionally(ex);
                return;
            }
            started.whenComplete((value, failure) ->
            {
                release.run();
                if (failure != null)
                {
                    result.completeExceptionally(failure);
                }
                else
                {
                    result.complete(value);
                }
            });
        };
    }

    /** One ended: its place goes to the first waiting, if any. */
    private void release()
    {
        final Runnable next;
        synchronized (this)
        {
            next = waiting.poll();
            if (next == null)
            {
                running--;
            }
        }
        if (next != null)
        {
            next.run();
        }
    }
}

package io.dkv.compute.command;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Admits a node's replayed commands of one key one at a time per key, whichever connections sent them, the others of
 * that key waiting in arrival order, as a store thread per key ran them before: commands of one hot key (a set every
 * client adds to) that all run at once abort one another's commits more than they get done; commands of other keys go
 * on beside them, as many as there are. A waiting one costs no thread: it is started from its connection's event loop
 * once the one before it on its key completes. Used from any thread.
 */
final class CarriedKeys
{
    /** The keys a command runs on, each with the commands waiting for it (empty: none waits). */
    private final Map<ByteBuffer, ArrayDeque<Runnable>> running = new HashMap<>();

    /**
     * Start the command's transaction now where none of its key runs, else once those before it on the key ended.
     *
     * @param loop  the event loop it is started from when it waited: the thread that ended the one before delivers
     *              the client's completions, and must not post.
     * @param key   the command's one key.
     * @param start starts the transaction (on this thread, or on {@code loop}).
     * @return completes as the transaction does.
     */
    <T> CompletableFuture<T> admit(final Executor loop, final byte[] key, final Supplier<CompletableFuture<T>> start)
    {
        final ByteBuffer wrapped = ByteBuffer.wrap(key.clone());
        final CompletableFuture<T> result = new CompletableFuture<>();
        final Runnable go = CarriedTransactions.starting(start, result, () -> release(wrapped));
        final boolean now;
        synchronized (this)
        {
            final ArrayDeque<Runnable> waiting = running.get(wrapped);
            now = waiting == null;
            if (now)
            {
                running.put(wrapped, new ArrayDeque<>(2));
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

    /** The key's command ended: the first waiting for the key goes, else the key runs nothing. */
    private void release(final ByteBuffer key)
    {
        final Runnable next;
        synchronized (this)
        {
            final ArrayDeque<Runnable> waiting = running.get(key);
            next = waiting.poll();
            if (next == null)
            {
                running.remove(key);
            }
        }
        if (next != null)
        {
            next.run();
        }
    }
}

package io.dkv.compute.command;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Admits a node's replayed commands of one key one batch at a time per key, whichever connections sent them: what
 * waits for a key while a batch of it runs goes next, as one batch of the commands of one event loop (at most
 * {@link #MAX_BATCH}), in one transaction. Commands of one hot key (a set every client adds to) that each ran their own
 * transaction at once would abort one another's commits more than they get done, and one at a time each would pay its
 * rounds alone; a batch pays them once for all. Commands of other keys go on beside. A waiting command costs no
 * thread: its batch is started from its event loop once the batch before it on its key completed. Used from any
 * thread.
 *
 * @param <P> a waiting command.
 */
final class KeyBatches<P>
{
    /** Commands of one batch at most. */
    static final int MAX_BATCH = 64;

    private final Map<ByteBuffer, ArrayDeque<P>> running = new HashMap<>();
    private final Function<P, Executor> loopOf;
    private final Function<List<P>, CompletableFuture<?>> runner;

    /**
     * @param loopOf the event loop a command came from, which starts its batch and runs it.
     * @param runner starts a batch; what it answers completes once every command of the batch was answered.
     */
    KeyBatches(final Function<P, Executor> loopOf, final Function<List<P>, CompletableFuture<?>> runner)
    {
        this.loopOf = loopOf;
        this.runner = runner;
    }

    /** Run the command now, alone, where no batch of its key runs (on this thread), else in a later batch. */
    void submit(final byte[] key, final P command)
    {
        final ByteBuffer wrapped = ByteBuffer.wrap(key.clone());
        synchronized (this)
        {
            final ArrayDeque<P> waiting = running.get(wrapped);
            if (waiting != null)
            {
                waiting.add(command);
                return;
            }
            running.put(wrapped, new ArrayDeque<>(4));
        }
        start(wrapped, List.of(command));
    }

    private void start(final ByteBuffer key, final List<P> batch)
    {
        final CompletableFuture<?> done;
        try
        {
            done = runner.apply(batch);
        }
        catch (final RuntimeException ex)
        {
            release(key);
            throw ex;
        }
        done.whenComplete((ignored, failure) -> release(key));
    }

    /** The key's batch ended: the next goes, the first waiting and those of its event loop after it, else none. */
    private void release(final ByteBuffer key)
    {
        final List<P> next;
        synchronized (this)
        {
            final ArrayDeque<P> waiting = running.get(key);
            if (waiting.isEmpty())
            {
                running.remove(key);
                return;
            }
            final Executor loop = loopOf.apply(waiting.peek());
            next = new ArrayList<>(Math.min(waiting.size(), MAX_BATCH));
            final Iterator<P> each = waiting.iterator();
            while (each.hasNext() && next.size() < MAX_BATCH)
            {
                final P command = each.next();
                if (loopOf.apply(command) == loop)
                {
                    next.add(command);
                    each.remove();
                }
            }
        }
        loopOf.apply(next.get(0)).execute(() -> start(key, next));
    }
}

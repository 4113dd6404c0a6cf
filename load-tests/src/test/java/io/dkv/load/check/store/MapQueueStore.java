package io.dkv.load.check.store;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A correct queue in memory: lists under one lock, RPUSH waking the pops that wait for an element, each element taken
 * by one pop only. The control against which the duplicate-pops layer is judged.
 */
public final class MapQueueStore extends MapStore implements QueueStore
{
    private final Map<String, ArrayDeque<byte[]>> queues = new HashMap<>();

    public synchronized List<List<byte[]>> listSteps(final List<ListStep> steps)
    {
        final List<List<byte[]>> results = new ArrayList<>(steps.size());
        for (final ListStep step : steps)
        {
            final ArrayDeque<byte[]> queue = queues.computeIfAbsent(step.key(), key -> new ArrayDeque<>());
            if (step.element() != null)
            {
                queue.addLast(step.element().clone());
                results.add(null);
                notifyAll();
            }
            else
            {
                results.add(new ArrayList<>(queue));
            }
        }
        return results;
    }

    public synchronized byte[] blockingPop(final String key, final long timeoutMs)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final ArrayDeque<byte[]> queue = queues.computeIfAbsent(key, ignored -> new ArrayDeque<>());
        while (queue.isEmpty())
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return null;
            }
            try
            {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while popping " + key, ex);
            }
        }
        return queue.pollFirst();
    }
}

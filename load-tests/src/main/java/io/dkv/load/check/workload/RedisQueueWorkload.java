package io.dkv.load.check.workload;

import io.dkv.checker.queue.QueueChecker;
import io.dkv.load.check.store.CheckedStore;
import io.dkv.load.check.store.QueueStore;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A total queue on real lists through compute nodes: enqueues RPUSH a unique element (its decimal text) onto one of
 * keys {@code q0 .. q<keys-1>}, dequeues BLPOP one with a timeout of half the operation's deadline (a pop that times
 * out is an ok dequeue of nothing), and the final reads drain what is left with LRANGE 0 -1. A pop blocked through one
 * compute node is woken by a push through another, and the nemesis kills and pauses the nodes under the waiters;
 * {@link QueueChecker} then asks that no element was lost, delivered twice, or came from nowhere. A client of the
 * driver has no blocking pop, so {@code dkv check} runs this workload through compute nodes only.
 */
public final class RedisQueueWorkload implements Workload
{
    public static final String NAME = "redis-queue";
    private static final long ELEMENTS_PER_PROCESS = 1L << 32;
    /** Fewer enqueues than dequeues keep the queues mostly empty, so that most pops block and a push wakes them. */
    private static final double ENQUEUE_SHARE = 0.4;

    private final int keys;
    private final AtomicLong enqueued = new AtomicLong();

    /** @param keys queue keys {@code q0 .. q<keys-1>}. */
    public RedisQueueWorkload(final int keys)
    {
        if (keys < 1)
        {
            throw new IllegalArgumentException("redis-queue workload: keys " + keys + ": at least 1");
        }
        this.keys = keys;
    }

    public String name()
    {
        return NAME;
    }

    /** @return an enqueue (2 in 5) or a dequeue on a key drawn; each element unique across processes. */
    public Invocation next(final Random random, final int process)
    {
        final String key = "q" + random.nextInt(keys);
        return random.nextDouble() < ENQUEUE_SHARE ?
            new Invocation(QueueChecker.ENQUEUE, key, process * ELEMENTS_PER_PROCESS + enqueued.getAndIncrement()) :
            new Invocation(QueueChecker.DEQUEUE, key, null);
    }

    public List<Invocation> finalReads()
    {
        final List<Invocation> drains = new ArrayList<>(keys);
        for (int i = 0; i < keys; i++)
        {
            drains.add(new Invocation(QueueChecker.DRAIN, "q" + i, null));
        }
        return drains;
    }

    public Object execute(final CheckedStore store, final Invocation invocation, final long deadlineNanos)
    {
        final String key = invocation.key();
        return switch (invocation.f())
        {
            case QueueChecker.ENQUEUE ->
            {
                store.listSteps(List.of(new CheckedStore.ListStep(key,
                    Long.toString((Long)invocation.value()).getBytes(StandardCharsets.US_ASCII))));
                yield invocation.value();
            }
            case QueueChecker.DEQUEUE ->
            {
                // half the deadline: a pop that timed out answers nil well before the client gives up on the reply
                final long timeoutMs =
                    Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) / 2);
                final byte[] element = QueueStore.of(store).blockingPop(key, timeoutMs);
                yield element == null ? null : element(element);
            }
            case QueueChecker.DRAIN ->
            {
                final List<byte[]> elements = store.listSteps(List.of(new CheckedStore.ListStep(key, null))).getFirst();
                final List<Object> left = new ArrayList<>(elements.size());
                for (final byte[] element : elements)
                {
                    left.add(element(element));
                }
                yield left;
            }
            default -> throw new IllegalArgumentException("redis-queue workload: no operation '" + invocation.f() +
                "'; expected " + QueueChecker.ENQUEUE + ", " + QueueChecker.DEQUEUE + " or " + QueueChecker.DRAIN);
        };
    }

    /** @return the element as enqueued, or its text when it is no number, which the checker then finds unexpected. */
    private static Object element(final byte[] bytes)
    {
        final String text = new String(bytes, StandardCharsets.UTF_8);
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            return text;
        }
    }
}

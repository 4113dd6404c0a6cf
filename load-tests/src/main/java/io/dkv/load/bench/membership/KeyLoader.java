package io.dkv.load.bench.membership;

import io.dkv.client.KvClient;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes every key of a {@link KeySpace} through a client, and reads every one back, on a few threads that take
 * batches of keys in turn, printing progress each second.
 */
final class KeyLoader
{
    private static final int BATCH = 256;
    private static final long PROGRESS_INTERVAL_MS = 1_000;
    private static final int MISMATCHES_KEPT = 10;

    private final KvClient client;
    private final KeySpace keySpace;
    private final int threads;
    private final PrintWriter progress;

    /**
     * What a pass over every key did.
     *
     * @param keys       keys written or read.
     * @param nanos      how long it took.
     * @param mismatches keys that held no value of their own (reads only).
     * @param examples   the first few mismatches, described.
     */
    record Pass(long keys, long nanos, long mismatches, List<String> examples)
    {
        double keysPerSecond()
        {
            return keys * 1e9 / nanos;
        }
    }

    KeyLoader(final KvClient client, final KeySpace keySpace, final int threads, final PrintWriter progress)
    {
        this.client = client;
        this.keySpace = keySpace;
        this.threads = threads;
        this.progress = progress;
    }

    /** Put every key, version 0. */
    Pass load() throws InterruptedException
    {
        return pass("load", index ->
        {
            client.put(keySpace.key(index), keySpace.value(index, 0));
            return null;
        });
    }

    /** Get every key and check it holds a value of its own. */
    Pass verify() throws InterruptedException
    {
        return pass("verify", index -> keySpace.mismatch(index, client.get(keySpace.key(index))));
    }

    private interface KeyTask
    {
        /** @return null when the key is right, else what is wrong. */
        String run(int index);
    }

    private Pass pass(final String name, final KeyTask task) throws InterruptedException
    {
        final AtomicInteger next = new AtomicInteger();
        final AtomicLong done = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final Queue<String> examples = new ConcurrentLinkedQueue<>();
        final Queue<RuntimeException> errors = new ConcurrentLinkedQueue<>();
        final List<Thread> workers = new ArrayList<>();
        final long started = System.nanoTime();
        for (int t = 0; t < threads; t++)
        {
            workers.add(Thread.ofPlatform().name("dkv-bench-membership-" + name + "-" + t).start(() ->
            {
                try
                {
                    for (int from = next.getAndAdd(BATCH); from < keySpace.keys(); from = next.getAndAdd(BATCH))
                    {
                        final int to = Math.min(keySpace.keys(), from + BATCH);
                        for (int index = from; index < to; index++)
                        {
                            final String mismatch = task.run(index);
                            if (mismatch != null && mismatches.incrementAndGet() <= MISMATCHES_KEPT)
                            {
                                examples.add(mismatch);
                            }
                        }
                        done.addAndGet(to - from);
                    }
                }
                catch (final RuntimeException ex)
                {
                    errors.add(ex);
                    next.set(keySpace.keys());
                }
            }));
        }
        for (final Thread worker : workers)
        {
            while (!worker.join(Duration.ofMillis(PROGRESS_INTERVAL_MS)))
            {
                print(name, done.get(), System.nanoTime() - started);
            }
        }
        final long nanos = System.nanoTime() - started;
        if (!errors.isEmpty())
        {
            final RuntimeException first = errors.peek();
            throw new IllegalStateException(name + " of " + keySpace.keys() + " keys failed after " + done.get() +
                ": " + first.getMessage(), first);
        }
        print(name, done.get(), nanos);
        return new Pass(done.get(), nanos, mismatches.get(), List.copyOf(examples));
    }

    private void print(final String name, final long done, final long nanos)
    {
        progress.printf(Locale.ROOT, "%s: %,d of %,d keys (%,.0f MiB), %,.0f keys/s, %.1f s%n", name, done,
            keySpace.keys(), done * (double)keySpace.valueSize() / (1 << 20),
            done * 1e9 / Math.max(1, nanos), nanos / (double)TimeUnit.SECONDS.toNanos(1));
        progress.flush();
    }
}

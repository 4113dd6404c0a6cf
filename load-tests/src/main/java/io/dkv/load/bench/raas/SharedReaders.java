package io.dkv.load.bench.raas;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a read loop on several threads at once for a fixed time and counts the reads completed
 * while the clock ran. Each thread has its own reader; they start together, run through a warm-up,
 * then count for the measured time.
 */
final class SharedReaders
{
    /** One synchronous read by one thread. */
    @FunctionalInterface
    interface Reader
    {
        void readOnce();
    }

    /** Makes the reader of thread {@code index}, on that thread's behalf but before it starts. */
    @FunctionalInterface
    interface ReaderFactory
    {
        Reader reader(int index);
    }

    /**
     * What the threads did while the clock ran.
     *
     * @param counts       reads of each thread.
     * @param elapsedNanos how long the clock ran.
     */
    record Result(long[] counts, long elapsedNanos)
    {
        Result
        {
            counts = counts.clone();
        }

        /** @return reads per second of all threads together. */
        double opsPerSecond()
        {
            return total() * 1e9 / elapsedNanos;
        }

        /** @return the slowest thread's reads over the even share (1.0 when all did as many). */
        double slowestShare()
        {
            long slowest = Long.MAX_VALUE;
            for (final long count : counts)
            {
                slowest = Math.min(slowest, count);
            }
            return (double)slowest * counts.length / total();
        }

        /**
         * @return this and another run of the same threads, as if they had been one run.
         */
        Result plus(final Result other)
        {
            if (other.counts.length != counts.length)
            {
                throw new IllegalArgumentException("a run of " + counts.length + " threads and one of " +
                    other.counts.length);
            }
            final long[] sum = counts.clone();
            for (int i = 0; i < sum.length; i++)
            {
                sum[i] += other.counts[i];
            }
            return new Result(sum, elapsedNanos + other.elapsedNanos);
        }

        private long total()
        {
            long total = 0;
            for (final long count : counts)
            {
                total += count;
            }
            return total;
        }
    }

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;
    private static final long JOIN_TIMEOUT_MILLIS = Waiting.TIMEOUT_NANOS / 1_000_000;

    private volatile int phase = WARMUP;

    private SharedReaders()
    {
    }

    /**
     * @param threads        threads reading at once.
     * @param factory        the reader of each thread.
     * @param warmupMillis   how long they read before counting starts.
     * @param measureMillis  how long reads are counted.
     * @param name           thread name prefix, also used in errors.
     */
    static Result run(
        final int threads, final ReaderFactory factory, final long warmupMillis, final long measureMillis,
        final String name)
        throws InterruptedException
    {
        return new SharedReaders().measure(threads, factory, warmupMillis, measureMillis, name);
    }

    private Result measure(
        final int threads, final ReaderFactory factory, final long warmupMillis, final long measureMillis,
        final String name)
        throws InterruptedException
    {
        final long[] counts = new long[threads];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch ready = new CountDownLatch(threads);
        final Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++)
        {
            final int index = i;
            final Reader reader = factory.reader(i);
            workers[i] = new Thread(() ->
            {
                ready.countDown();
                try
                {
                    counts[index] = loop(reader);
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                    phase = STOP;
                }
            }, name + "-" + i);
            workers[i].setDaemon(true);
        }
        for (final Thread worker : workers)
        {
            worker.start();
        }
        ready.await();
        TimeUnit.MILLISECONDS.sleep(warmupMillis);
        final long start = System.nanoTime();
        if (phase == WARMUP)
        {
            phase = MEASURE;
        }
        TimeUnit.MILLISECONDS.sleep(measureMillis);
        phase = STOP;
        final long elapsed = System.nanoTime() - start;
        for (final Thread worker : workers)
        {
            worker.join(JOIN_TIMEOUT_MILLIS);
            if (worker.isAlive())
            {
                throw new IllegalStateException(worker.getName() + " did not stop within " + JOIN_TIMEOUT_MILLIS +
                    " ms");
            }
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException(name + ": a reader failed", failure.get());
        }
        if (Arrays.stream(counts).sum() == 0)
        {
            throw new IllegalStateException(name + ": " + threads + " threads completed no read in " + measureMillis +
                " ms");
        }
        return new Result(counts, elapsed);
    }

    /**
     * Read until told to stop, counting the reads started while the clock ran: at most one read
     * per thread straddles each edge of the measured time.
     */
    private long loop(final Reader reader)
    {
        long counted = 0;
        int current;
        while ((current = phase) != STOP)
        {
            reader.readOnce();
            if (current == MEASURE)
            {
                counted++;
            }
        }
        return counted;
    }
}

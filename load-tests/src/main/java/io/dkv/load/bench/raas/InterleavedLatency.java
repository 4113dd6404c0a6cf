package io.dkv.load.bench.raas;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Measures the latency of subjects that are compared with each other in blocks taken in turn
 * (a block of the first, a block of the second, ... and again), so that a change in the load of
 * a shared machine during the run falls on all of them alike rather than on whichever ran then.
 * Each subject times either a fixed number of operations or as many as fit a time budget, judged
 * from how fast it ran during its warm-up.
 */
final class InterleavedLatency
{
    /** Longer latencies are recorded as this; a benchmark that sees one has bigger problems. */
    static final long MAX_RECORDED_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Warm-ups run in calls of this many operations, so that each loop is compiled whole. */
    static final int WARMUP_CHUNK = 100;

    private final long warmupNanos;
    private final int iterations;
    private final long budgetNanos;
    private final int blocks;

    private InterleavedLatency(final long warmupMillis, final int iterations, final long budgetMillis, final int blocks)
    {
        if (warmupMillis < 0 || blocks <= 0)
        {
            throw new IllegalArgumentException("warmup " + warmupMillis + " ms must be >= 0 and blocks " + blocks +
                " > 0");
        }
        this.warmupNanos = TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        this.iterations = iterations;
        this.budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMillis);
        this.blocks = blocks;
    }

    /**
     * @param warmupMillis how long each subject runs, discarded, before timing starts.
     * @param iterations   operations timed per subject.
     * @param blocks       how many turns the timed operations are split into.
     */
    static InterleavedLatency ofIterations(final long warmupMillis, final int iterations, final int blocks)
    {
        if (iterations <= 0)
        {
            throw new IllegalArgumentException("iterations " + iterations + " must be > 0");
        }
        return new InterleavedLatency(warmupMillis, iterations, 0, blocks);
    }

    /**
     * @param warmupMillis how long each subject runs, discarded, before timing starts; at least one
     *                     chunk of operations runs, from which the subject's pace is taken.
     * @param budgetMillis about how long each subject's timed operations take together.
     * @param blocks       how many turns the timed operations are split into.
     */
    static InterleavedLatency ofMillis(final long warmupMillis, final long budgetMillis, final int blocks)
    {
        if (budgetMillis <= 0)
        {
            throw new IllegalArgumentException("budget " + budgetMillis + " ms must be > 0");
        }
        return new InterleavedLatency(warmupMillis, 0, budgetMillis, blocks);
    }

    /**
     * Run each subject for a while, discarding the latencies: before the first measurement, so that
     * the code all subjects share is compiled before any of them is timed.
     */
    static void warmUp(final List<TimedLoop> subjects, final long millis)
    {
        final Histogram discarded = new Histogram(MAX_RECORDED_NANOS, 3);
        for (final TimedLoop subject : subjects)
        {
            runFor(subject, TimeUnit.MILLISECONDS.toNanos(millis), discarded);
        }
    }

    /**
     * @return operations run.
     */
    private static long runFor(final TimedLoop subject, final long nanos, final Histogram discarded)
    {
        final long end = System.nanoTime() + nanos;
        long operations = 0;
        do
        {
            subject.run(WARMUP_CHUNK, discarded);
            operations += WARMUP_CHUNK;
        }
        while (System.nanoTime() < end);
        return operations;
    }

    /**
     * @return the latency of each subject, in the order given.
     */
    List<Latency> measure(final List<TimedLoop> subjects)
    {
        final Histogram discarded = new Histogram(MAX_RECORDED_NANOS, 3);
        final int[] counts = new int[subjects.size()];
        for (int i = 0; i < subjects.size(); i++)
        {
            final long start = System.nanoTime();
            final long operations = runFor(subjects.get(i), warmupNanos, discarded);
            final long elapsed = Math.max(1, System.nanoTime() - start);
            counts[i] =
                iterations > 0 ? iterations :
                (int)Math.min(Integer.MAX_VALUE, Math.max(blocks, operations * budgetNanos / elapsed));
        }
        final List<Histogram> histograms = new ArrayList<>();
        final long[][] blockMedians = new long[subjects.size()][];
        for (int i = 0; i < subjects.size(); i++)
        {
            histograms.add(new Histogram(MAX_RECORDED_NANOS, 3));
            blockMedians[i] = new long[Math.min(blocks, counts[i])];
        }
        final Histogram block = new Histogram(MAX_RECORDED_NANOS, 3);
        for (int b = 0; b < blocks; b++)
        {
            for (int i = 0; i < subjects.size(); i++)
            {
                final int count = counts[i] / blocks + (b < counts[i] % blocks ? 1 : 0);
                if (count > 0)
                {
                    block.reset();
                    subjects.get(i).run(count, block);
                    blockMedians[i][b] = block.getValueAtPercentile(50.0);
                    histograms.get(i).add(block);
                }
            }
        }
        final List<Latency> latencies = new ArrayList<>();
        for (int i = 0; i < subjects.size(); i++)
        {
            latencies.add(Latency.of(histograms.get(i), blockMedians[i]));
        }
        return latencies;
    }
}

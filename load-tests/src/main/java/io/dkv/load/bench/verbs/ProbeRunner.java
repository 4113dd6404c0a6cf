package io.dkv.load.bench.verbs;

import io.dkv.load.bench.Measurement;
import org.HdrHistogram.Histogram;

import java.util.concurrent.TimeUnit;

/**
 * Measures a probe the same way for every subject: a warm-up, then timed single operations for the
 * percentiles; a warm-up, then a batch for the throughput. Warm-ups last a fixed time rather than a
 * fixed count, because subjects differ a hundredfold in speed and the JIT needs about as many
 * operations from each.
 */
final class ProbeRunner
{
    /** Longer latencies are recorded as this; a benchmark that sees one has bigger problems. */
    static final long MAX_RECORDED_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Warm-ups run in calls of this many operations, so that the probe's methods are compiled whole. */
    static final int WARMUP_CHUNK = 1000;

    private final Histogram latencies = new Histogram(MAX_RECORDED_NANOS, 3);
    private final long warmupNanos;
    private final int iterations;

    /**
     * @param warmupMillis how long operations are run and discarded before each timed part.
     * @param iterations   operations of each timed part.
     */
    ProbeRunner(final long warmupMillis, final int iterations)
    {
        if (warmupMillis < 0 || iterations <= 0)
        {
            throw new IllegalArgumentException(
                "warmup " + warmupMillis + " ms must be >= 0 and iterations " + iterations + " > 0");
        }
        this.warmupNanos = TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        this.iterations = iterations;
    }

    Measurement measure(final Probe probe)
    {
        final long timedWarmupEnd = System.nanoTime() + warmupNanos;
        while (System.nanoTime() < timedWarmupEnd)
        {
            probe.runTimed(WARMUP_CHUNK, latencies);
        }
        latencies.reset();
        probe.runTimed(iterations, latencies);

        final long batchWarmupEnd = System.nanoTime() + warmupNanos;
        while (System.nanoTime() < batchWarmupEnd)
        {
            probe.runBatch(WARMUP_CHUNK);
        }
        final long elapsedNanos = probe.runBatch(iterations);
        return Measurement.of(latencies, iterations, elapsedNanos);
    }
}

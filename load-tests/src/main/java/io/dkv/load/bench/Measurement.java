package io.dkv.load.bench;

import org.HdrHistogram.Histogram;

/**
 * The figures of one measured subject: latency percentiles of operations run one at a time, and
 * the throughput of a separate run.
 *
 * @param p50Nanos     median latency.
 * @param p99Nanos     99th percentile latency.
 * @param opsPerSecond throughput.
 * @param samples      latencies the percentiles were taken from.
 */
public record Measurement(long p50Nanos, long p99Nanos, double opsPerSecond, long samples)
{
    /**
     * @param latencies    one value per operation, in nanoseconds.
     * @param operations   operations of the throughput run.
     * @param elapsedNanos how long the throughput run took.
     * @return the figures.
     */
    public static Measurement of(final Histogram latencies, final long operations, final long elapsedNanos)
    {
        if (latencies.getTotalCount() == 0)
        {
            throw new IllegalArgumentException("no latency was recorded");
        }
        if (elapsedNanos <= 0)
        {
            throw new IllegalArgumentException("throughput run of " + operations + " operations took " + elapsedNanos +
                " ns");
        }
        return new Measurement(
            latencies.getValueAtPercentile(50.0),
            latencies.getValueAtPercentile(99.0),
            operations * 1e9 / elapsedNanos,
            latencies.getTotalCount());
    }
}

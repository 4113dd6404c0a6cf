package io.dkv.load.bench.raas;

import org.HdrHistogram.Histogram;

/**
 * Latency percentiles of operations run one at a time, and the median of each block they were run
 * in, so that two subjects timed in alternating blocks can be compared block by block.
 *
 * @param p50Nanos    median.
 * @param p99Nanos    99th percentile.
 * @param samples     operations the percentiles were taken from.
 * @param blockMedians the median of each block, in the order run.
 * @param histogram    every operation, kept for the page's percentile curves; null where only the figures are known.
 */
record Latency(long p50Nanos, long p99Nanos, long samples, long[] blockMedians, Histogram histogram)
{
    Latency
    {
        blockMedians = blockMedians.clone();
    }

    Latency(final long p50Nanos, final long p99Nanos, final long samples, final long[] blockMedians)
    {
        this(p50Nanos, p99Nanos, samples, blockMedians, null);
    }

    /**
     * @param histogram    every operation.
     * @param blockMedians the median of each block.
     */
    static Latency of(final Histogram histogram, final long[] blockMedians)
    {
        if (histogram.getTotalCount() == 0)
        {
            throw new IllegalArgumentException("no latency was recorded");
        }
        return new Latency(histogram.getValueAtPercentile(50.0), histogram.getValueAtPercentile(99.0),
            histogram.getTotalCount(),
            blockMedians, histogram);
    }

    /**
     * @return in how many blocks this median was at most the other's (blocks compared pairwise).
     */
    int blocksNoSlowerThan(final Latency other)
    {
        final int blocks = Math.min(blockMedians.length, other.blockMedians.length);
        int count = 0;
        for (int i = 0; i < blocks; i++)
        {
            if (blockMedians[i] <= other.blockMedians[i])
            {
                count++;
            }
        }
        return count;
    }

    /** @return blocks both were measured in. */
    int blocksWith(final Latency other)
    {
        return Math.min(blockMedians.length, other.blockMedians.length);
    }

    /**
     * @return this p50 / the other's p50: how many times slower; lower is better.
     */
    double p50Ratio(final Latency baseline)
    {
        return (double)p50Nanos / Math.max(1, baseline.p50Nanos);
    }

    double p99Ratio(final Latency baseline)
    {
        return (double)p99Nanos / Math.max(1, baseline.p99Nanos);
    }
}

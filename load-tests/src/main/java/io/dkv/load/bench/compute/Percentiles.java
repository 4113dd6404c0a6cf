package io.dkv.load.bench.compute;

import java.util.Arrays;

/**
 * Nearest-rank percentiles of a few samples (a p99 of 20 is their largest).
 */
final class Percentiles
{
    private Percentiles()
    {
    }

    /**
     * @param samples    not empty; not changed.
     * @param percentile in (0, 100].
     * @return the smallest sample that at least {@code percentile}% of them are at or below.
     */
    static long of(final long[] samples, final double percentile)
    {
        if (samples.length == 0 || percentile <= 0 || percentile > 100)
        {
            throw new IllegalArgumentException("percentile " + percentile + " of " + samples.length + " samples");
        }
        final long[] sorted = samples.clone();
        Arrays.sort(sorted);
        final int rank = (int)Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }
}

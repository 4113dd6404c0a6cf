package io.dkv.load.bench.verbs;

import io.dkv.load.bench.Measurement;
import io.dkv.load.bench.Provider;

/**
 * One line of the report: an operation of one size on one provider, beside its floor.
 *
 * @param provider  the provider measured.
 * @param operation the operation.
 * @param size      bytes per operation.
 * @param floorName what the floor did.
 * @param verbs     the provider's figures.
 * @param floor     the floor's figures.
 */
record ResultRow(Provider provider, Operation operation, int size, String floorName, Measurement verbs,
    Measurement floor)
{
    /** @return verbs p50 / floor p50: how many times slower than the floor; lower is better. */
    double p50Ratio()
    {
        return ratio(verbs.p50Nanos(), floor.p50Nanos());
    }

    /** @return verbs p99 / floor p99; lower is better. */
    double p99Ratio()
    {
        return ratio(verbs.p99Nanos(), floor.p99Nanos());
    }

    /** @return verbs ops/s / floor ops/s: the share of the floor's throughput reached; higher is better. */
    double throughputRatio()
    {
        return verbs.opsPerSecond() / floor.opsPerSecond();
    }

    private static double ratio(final long value, final long floor)
    {
        // a clock tick below the timer's resolution reads as 0 ns
        return (double)value / Math.max(1, floor);
    }
}

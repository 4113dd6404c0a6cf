package io.dkv.load.bench.raas;

import java.util.Arrays;

/** The median of a part's rounds: the upper one of an even count. */
final class Medians
{
    private Medians()
    {
    }

    /** @param values not empty; not changed. */
    static double of(final double[] values)
    {
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}

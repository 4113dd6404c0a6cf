package io.dkv.load.bench.raas;

import java.util.List;
import java.util.Locale;

/**
 * Where one way of carrying messages gives way to another, from their latencies at the measured
 * sizes. At each size the two ways were timed in alternating blocks; one is decisively faster when
 * its block median was no higher in at least {@link #DECISIVE_SHARE} of the blocks and its overall
 * median is at least {@link #MIN_GAIN} lower, else the size is a tie: a difference that is steady
 * but tiny is not worth a threshold. The threshold (the largest size still carried the small-message way) is the one
 * that loses least over all sizes, each decisive size weighing the relative latency lost where the slower way
 * is chosen for it. Among equally good thresholds the largest is taken: on a tie the small-message
 * way is preferred, as it is the cheaper one for the system (a SEND leaves the receiver's advertised
 * buffer free; a copy pins and registers no caller memory).
 *
 * @param threshold       largest measured size carried the small-message way; 0 when none is.
 * @param firstLargeSize  smallest measured size carried the other way, or -1 when none is.
 * @param smallestSize    smallest size measured.
 * @param largestSize     largest size measured.
 * @param decisiveSizes   sizes at which one way was decisively faster.
 */
record Crossover(int threshold, int firstLargeSize, int smallestSize, int largestSize, int decisiveSizes)
{
    /** Share of blocks one way must win to be decisively faster at a size. */
    static final double DECISIVE_SHARE = 0.8;
    /** How much lower the faster way's median must be, relative to the other's, to count. */
    static final double MIN_GAIN = 0.02;

    /**
     * Both ways at one size.
     *
     * @param size         message bytes.
     * @param smallWay     latency of the small-message way.
     * @param largeWay     latency of the large-message way.
     */
    record Point(int size, Latency smallWay, Latency largeWay)
    {
        /** @return +1 when the small-message way is decisively faster, -1 when the other is, 0 on a tie. */
        int verdict()
        {
            final int blocks = smallWay.blocksWith(largeWay);
            if (blocks == 0)
            {
                return 0;
            }
            final int smallWins = smallWay.blocksNoSlowerThan(largeWay);
            final int largeWins = largeWay.blocksNoSlowerThan(smallWay);
            if (smallWins >= DECISIVE_SHARE * blocks && smallWins > largeWins && gains(smallWay, largeWay))
            {
                return 1;
            }
            if (largeWins >= DECISIVE_SHARE * blocks && largeWins > smallWins && gains(largeWay, smallWay))
            {
                return -1;
            }
            return 0;
        }

        private static boolean gains(final Latency faster, final Latency slower)
        {
            return faster.p50Nanos() <= (1.0 - MIN_GAIN) * slower.p50Nanos();
        }

        /** @return what carrying this size the small-message way costs, relative to the other way. */
        double lossIfSmall()
        {
            return verdict() < 0 ? (double)smallWay.p50Nanos() / Math.max(1, largeWay.p50Nanos()) - 1.0 : 0.0;
        }

        double lossIfLarge()
        {
            return verdict() > 0 ? (double)largeWay.p50Nanos() / Math.max(1, smallWay.p50Nanos()) - 1.0 : 0.0;
        }
    }

    /**
     * @param points one per measured size, in increasing size.
     */
    static Crossover of(final List<Point> points)
    {
        if (points.isEmpty())
        {
            throw new IllegalArgumentException("no size was measured");
        }
        final int n = points.size();
        int best = -1;
        double bestCost = Double.MAX_VALUE;
        for (int last = -1; last < n; last++)
        {
            double cost = 0;
            for (int i = 0; i < n; i++)
            {
                cost += i <= last ? points.get(i).lossIfSmall() : points.get(i).lossIfLarge();
            }
            if (cost <= bestCost)
            {
                bestCost = cost;
                best = last;
            }
        }
        int decisive = 0;
        for (final Point point : points)
        {
            if (point.verdict() != 0)
            {
                decisive++;
            }
        }
        return new Crossover(
            best < 0 ? 0 : points.get(best).size,
            best + 1 < n ? points.get(best + 1).size : -1,
            points.get(0).size,
            points.get(n - 1).size,
            decisive);
    }

    /** @return true when the small-message way was chosen at every size measured. */
    boolean smallWayThroughout()
    {
        return firstLargeSize < 0;
    }

    /** @return true when the large-message way was chosen at every size measured. */
    boolean largeWayThroughout()
    {
        return threshold == 0;
    }

    /**
     * @return the crossover in words, e.g. "SEND up to 1,024 B, WRITE_WITH_IMM from 2,048 B".
     */
    String describe(final String smallWay, final String largeWay)
    {
        if (decisiveSizes == 0)
        {
            return String.format(Locale.ROOT, "no decisive difference from %,d to %,d B: %s (the cheaper on a tie)",
                smallestSize, largestSize, smallWay);
        }
        if (smallWayThroughout())
        {
            return String.format(Locale.ROOT, "%s at every size measured (%,d to %,d B)", smallWay, smallestSize,
                largestSize);
        }
        if (largeWayThroughout())
        {
            return String.format(Locale.ROOT, "%s from the smallest size measured (%,d B)", largeWay, smallestSize);
        }
        return String.format(Locale.ROOT, "%s up to %,d B, %s from %,d B", smallWay, threshold, largeWay,
            firstLargeSize);
    }
}

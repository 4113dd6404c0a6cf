package io.dkv.load.bench.html;

import org.HdrHistogram.AbstractHistogram;
import org.HdrHistogram.HistogramIterationValue;

import java.util.ArrayList;
import java.util.List;

/**
 * A histogram's latency percentile curve as HdrHistogram's own percentile output gives it: its percentile iteration,
 * ever closer steps toward the tail, each step a point at x = 1 / (1 - percentile), as
 * {@link LineChart.Scale#PERCENTILE} plots it.
 */
public final class PercentileCurve
{
    /** Steps from one halving of the distance to 100% to the next, as HdrHistogram's percentile output takes. */
    static final int TICKS_PER_HALF_DISTANCE = 5;

    private PercentileCurve()
    {
    }

    /**
     * @param histogram the values recorded; empty gives no points.
     * @param unit      what a value is divided by for the curve, e.g. 1000 for nanoseconds drawn as microseconds.
     * @return a point per step, x = 1 / (1 - percentile / 100) and y the value at it, without the 100th percentile,
     * which a log scale cannot place.
     */
    public static List<Point> of(final AbstractHistogram histogram, final double unit)
    {
        if (unit <= 0)
        {
            throw new IllegalArgumentException("unit " + unit + " must be positive");
        }
        final List<Point> points = new ArrayList<>();
        if (histogram.getTotalCount() == 0)
        {
            return points;
        }
        for (final HistogramIterationValue value : histogram.percentiles(TICKS_PER_HALF_DISTANCE))
        {
            final double percentile = value.getPercentileLevelIteratedTo();
            if (percentile >= 100.0)
            {
                break;
            }
            points.add(new Point(1 / (1 - percentile / 100.0), value.getValueIteratedTo() / unit));
        }
        return points;
    }
}

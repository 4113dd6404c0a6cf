package io.dkv.load.bench.html;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A histogram's percentile curve: each point at 1 / (1 - percentile) with the histogram's value there, in the unit
 * asked for, toward the tail but short of the 100th percentile.
 */
class PercentileCurveTest
{
    @Test
    void givesTheHistogramsValueAtEachPercentileInTheUnitAskedFor()
    {
        final Histogram histogram = new Histogram(3);
        for (long value = 1; value <= 10_000; value++)
        {
            histogram.recordValue(value * 1000);
        }

        final List<Point> curve = PercentileCurve.of(histogram, 1000);

        assertTrue(curve.size() > 20, curve::toString);
        assertEquals(new Point(1, 1), curve.getFirst());
        for (int i = 1; i < curve.size(); i++)
        {
            assertTrue(curve.get(i).x() > curve.get(i - 1).x() && curve.get(i).y() >= curve.get(i - 1).y(),
                curve::toString);
        }
        for (final Point point : curve)
        {
            // x back to a percentile comes out a rounding above or below it: a millionth under it is the same rank
            final double percentile = 100 * (1 - 1 / point.x()) - 1e-6;
            assertTrue(percentile < 100, point::toString);
            assertEquals(histogram.getValueAtPercentile(percentile) / 1000.0, point.y(), 1e-9, point::toString);
        }
        assertEquals(histogram.getValueAtPercentile(50) / 1000.0, yAt(curve, 2), 1e-9);
        assertEquals(histogram.getValueAtPercentile(90) / 1000.0, yAt(curve, 10), 1e-9);
        // 3 significant digits: the median of 1..10,000 within a thousandth
        assertEquals(5000, yAt(curve, 2), 5);
    }

    @Test
    void givesNoPointsForAnEmptyHistogramAndRefusesANonPositiveUnit()
    {
        assertEquals(List.of(), PercentileCurve.of(new Histogram(3), 1));
        final IllegalArgumentException ex =
            assertThrows(IllegalArgumentException.class, () -> PercentileCurve.of(new Histogram(3), 0));
        assertEquals("unit 0.0 must be positive", ex.getMessage());
    }

    private static double yAt(final List<Point> curve, final double x)
    {
        return curve.stream().filter(point -> Math.abs(point.x() - x) < 1e-9).findFirst().orElseThrow(
            () -> new AssertionError("no point at x " + x + " in " + curve)).y();
    }
}

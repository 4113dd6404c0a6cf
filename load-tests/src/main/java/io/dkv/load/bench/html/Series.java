package io.dkv.load.bench.html;

import java.util.List;

/**
 * A named line of a {@link LineChart}, or a named colour of bars in a {@link BarChart}.
 *
 * @param name   as the legend shows it.
 * @param colour index into the page's palette, so that the same thing keeps the same colour across charts.
 * @param dashed drawn dashed, to tell apart two lines of one colour (a store and its baseline).
 * @param points in the order drawn; for a bar chart, one per category, y the bar's height (NaN: no bar).
 */
public record Series(String name, int colour, boolean dashed, List<Point> points)
{
    public Series
    {
        points = List.copyOf(points);
    }
}

package io.dkv.load.bench.html;

/**
 * A point of a plotted series, in the units of its axes.
 *
 * @param x along the horizontal axis.
 * @param y along the vertical axis.
 */
public record Point(double x, double y)
{
}

package io.dkv.load.bench.html;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

import static io.dkv.load.bench.html.Markup.coordinate;
import static io.dkv.load.bench.html.Markup.escape;

/**
 * Lines through each series' points, over linear axes from zero or over percentiles: the latter drawn as HdrHistogram's
 * plots draw them, at 1 / (1 - percentile) on a log scale, so that the tail (99%, 99.9%, ...) gets as much room as the
 * body and every step of nines is a decade; their values go on a log scale too, as a tail a thousand times the median
 * would flatten the rest of the curve on a linear one.
 */
public final class LineChart implements Chart
{
    /** How the horizontal axis maps values. */
    public enum Scale
    {
        /** From zero to a round number above the largest x. */
        LINEAR,
        /**
         * x is 1 / (1 - percentile / 100), on a log scale of whole decades from 1 (the 0th percentile); y on a log
         * scale of whole decades.
         */
        PERCENTILE
    }

    /** Never fewer decades than up to 99%, so that curves of few samples keep the same frame. */
    static final int MIN_DECADES = 2;
    static final String PERCENTILE_TITLE = "percentile (log scale)";

    private final String title;
    private final String xTitle;
    private final String yTitle;
    private final Scale scale;
    private final List<Series> series;
    private final PlotArea area;
    private final double xTop;
    private final double xStep;

    public LineChart(
        final String title, final String xTitle, final String yTitle, final Scale scale, final List<Series> series)
    {
        this.title = title;
        this.xTitle = xTitle;
        this.yTitle = yTitle;
        this.scale = scale;
        this.series = List.copyOf(series);
        final double maxX = PlotArea.max(series, true);
        this.area =
            new PlotArea(PlotArea.max(series, false), PlotArea.minPositiveY(series), scale == Scale.PERCENTILE);
        if (scale == Scale.PERCENTILE)
        {
            xStep = 1;
            xTop = Math.max(MIN_DECADES, Math.ceil(Math.log10(Math.max(1, maxX)) - 1e-9));
        }
        else
        {
            final double positive = maxX > 0 ? maxX : 1;
            xStep = PlotArea.step(positive);
            xTop = Math.ceil(positive / xStep - 1e-9) * xStep;
        }
    }

    /**
     * @param yTitle what the curves' values are, with their unit.
     * @param series one curve each, x = 1 / (1 - percentile / 100), as {@link PercentileCurve} makes them.
     */
    public static LineChart percentiles(final String title, final String yTitle, final List<Series> series)
    {
        return new LineChart(title, PERCENTILE_TITLE, yTitle, Scale.PERCENTILE, series);
    }

    public String title()
    {
        return title;
    }

    /** @return where a value of the horizontal axis goes on the page, from the left. */
    double x(final double value)
    {
        final double share = scale == Scale.PERCENTILE ? Math.log10(Math.max(1, value)) / xTop : value / xTop;
        return PlotArea.LEFT + PlotArea.PLOT_WIDTH * share;
    }

    /** @return where a value of the vertical axis goes on the page, from the top. */
    double y(final double value)
    {
        return area.y(value);
    }

    public String svg()
    {
        final StringBuilder svg = new StringBuilder();
        area.open(svg, title, xTitle, yTitle, 0);
        final double bottom = PlotArea.TOP + PlotArea.PLOT_HEIGHT;
        if (scale == Scale.PERCENTILE)
        {
            for (int decade = 0; decade <= xTop; decade++)
            {
                xTick(svg, Math.pow(10, decade), bottom);
            }
            // the median gets a tick of its own: it is what the tables quote first
            xTick(svg, 2, bottom);
        }
        else
        {
            final int ticks = (int)Math.round(xTop / xStep);
            for (int i = 0; i <= ticks; i++)
            {
                xTick(svg, i * xStep, bottom);
            }
        }
        for (final Series one : series)
        {
            final StringBuilder points = new StringBuilder();
            for (final Point point : one.points())
            {
                points.append(points.isEmpty() ? "" : " ").append(coordinate(x(point.x()))).append(',')
                    .append(coordinate(y(point.y())));
            }
            svg.append("<polyline class=\"series\" fill=\"none\" stroke=\"").append(PlotArea.colour(one.colour()))
                .append("\" stroke-width=\"2\"").append(one.dashed() ? " stroke-dasharray=\"6,3\"" : "")
                .append(" points=\"").append(points).append("\"><title>").append(escape(one.name()))
                .append("</title></polyline>\n");
        }
        area.close(svg, series, false);
        return svg.toString();
    }

    private void xTick(final StringBuilder svg, final double value, final double bottom)
    {
        final String x = coordinate(x(value));
        svg.append("<line class=\"grid\" x1=\"").append(x).append("\" y1=\"").append(PlotArea.TOP).append("\" x2=\"")
            .append(x).append("\" y2=\"").append(coordinate(bottom)).append("\"/>\n");
        PlotArea.text(svg, "tick", x(value), bottom + 16, "middle",
            scale == Scale.PERCENTILE ? percentile(value) : PlotArea.label(value));
    }

    /** @return the percentile at 1 / (1 - p) as a label: 50%, 99.9%. */
    static String percentile(final double inverseTail)
    {
        final double percent = 100 * (1 - 1 / inverseTail);
        return BigDecimal.valueOf(percent).setScale(6, RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString() +
            "%";
    }
}

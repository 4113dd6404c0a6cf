package io.dkv.load.bench.html;

import java.util.List;

import static io.dkv.load.bench.html.Markup.coordinate;
import static io.dkv.load.bench.html.Markup.escape;

/**
 * Grouped bars: a group per category (a thread count, a setting), a bar per series in each, from zero.
 */
public final class BarChart implements Chart
{
    /** Share of a category's slot its bars take; the rest parts the groups. */
    static final double GROUP_SHARE = 0.8;
    /** About how wide a character of a tick label is, to tell when labels would run into each other. */
    private static final double CHARACTER_WIDTH = 6.5;
    /** Degrees long labels are turned by, so that they do not run into each other. */
    private static final int SLANT = 25;
    private static final int LABEL_OFFSET = 12;

    private final String title;
    private final String xTitle;
    private final String yTitle;
    private final List<String> categories;
    private final List<Series> series;
    private final PlotArea area;

    /**
     * @param categories the groups, left to right.
     * @param series     the bars of each group, each with a point per category whose y is the bar's height (NaN for
     *                   none).
     */
    public BarChart(
        final String title,
        final String xTitle,
        final String yTitle,
        final List<String> categories,
        final List<Series> series)
    {
        for (final Series one : series)
        {
            if (one.points().size() != categories.size())
            {
                throw new IllegalArgumentException("series '" + one.name() + "' has " + one.points().size() +
                    " values for " + categories.size() + " categories " + categories);
            }
        }
        this.title = title;
        this.xTitle = xTitle;
        this.yTitle = yTitle;
        this.categories = List.copyOf(categories);
        this.series = List.copyOf(series);
        this.area = new PlotArea(PlotArea.max(series, false), 0, false);
    }

    public String title()
    {
        return title;
    }

    /** @return the width of a category's slot. */
    double slot()
    {
        return (double)PlotArea.PLOT_WIDTH / Math.max(1, categories.size());
    }

    /** @return the left edge of a bar. */
    double barX(final int category, final int seriesIndex)
    {
        return PlotArea.LEFT + category * slot() + slot() * (1 - GROUP_SHARE) / 2 + seriesIndex * barWidth();
    }

    double barWidth()
    {
        return slot() * GROUP_SHARE / Math.max(1, series.size());
    }

    /** @return where a value goes on the page, from the top. */
    double y(final double value)
    {
        return area.y(value);
    }

    public String svg()
    {
        int longest = 0;
        for (final String category : categories)
        {
            longest = Math.max(longest, category.length());
        }
        final boolean slanted = longest * CHARACTER_WIDTH > slot();
        final StringBuilder svg = new StringBuilder();
        area.open(svg, title, xTitle, yTitle,
            slanted ? (int)Math.ceil(LABEL_OFFSET + longest * CHARACTER_WIDTH * Math.sin(Math.toRadians(SLANT))) : 0);
        final double bottom = PlotArea.TOP + PlotArea.PLOT_HEIGHT;
        for (int c = 0; c < categories.size(); c++)
        {
            for (int s = 0; s < series.size(); s++)
            {
                final double value = series.get(s).points().get(c).y();
                if (Double.isFinite(value))
                {
                    svg.append("<rect class=\"bar\" x=\"").append(coordinate(barX(c, s))).append("\" y=\"")
                        .append(coordinate(y(value))).append("\" width=\"").append(coordinate(barWidth()))
                        .append("\" height=\"").append(coordinate(bottom - y(value))).append("\" fill=\"")
                        .append(PlotArea.colour(series.get(s).colour())).append("\"><title>")
                        .append(escape(series.get(s).name() + ", " + categories.get(c) + ": " + PlotArea.label(value)))
                        .append("</title></rect>\n");
                }
            }
            final double x = PlotArea.LEFT + (c + 0.5) * slot();
            if (slanted)
            {
                svg.append("<text class=\"tick\" text-anchor=\"end\" transform=\"translate(")
                    .append(coordinate(x + 4)).append(',').append(coordinate(bottom + LABEL_OFFSET))
                    .append(") rotate(-").append(SLANT).append(")\">").append(escape(categories.get(c)))
                    .append("</text>\n");
            }
            else
            {
                PlotArea.text(svg, "tick", x, bottom + 16, "middle", categories.get(c));
            }
        }
        area.close(svg, series, true);
        return svg.toString();
    }
}

package io.dkv.load.bench.html;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.load.bench.html.Markup.coordinate;
import static io.dkv.load.bench.html.Markup.escape;

/**
 * The frame every chart shares: its size, the plotting area inside the margins, a vertical axis from zero to a round
 * number above the largest value with its grid, the axes' titles and the legend to the right; the charts draw their
 * own horizontal axis and marks inside it.
 */
final class PlotArea
{
    static final int WIDTH = 650;
    static final int HEIGHT = 340;
    static final int LEFT = 70;
    static final int TOP = 36;
    /** Room for the legend. */
    static final int RIGHT = 170;
    /** Room for the horizontal axis's labels, slanted where they are long, and its title. */
    static final int BOTTOM = 70;
    static final int PLOT_WIDTH = WIDTH - LEFT - RIGHT;
    static final int PLOT_HEIGHT = HEIGHT - TOP - BOTTOM;
    static final String[] PALETTE =
        {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
    private static final int TARGET_TICKS = 5;
    /** How far below the axis its labels may reach and leave room for its title. */
    static final int LABEL_DEPTH = BOTTOM - 28;
    private static final int LEGEND_LINE = 14;
    private static final int LEGEND_GAP = 6;
    /** Characters of a legend's line that fit beside the plot; longer names wrap. */
    private static final int LEGEND_CHARACTERS = 18;

    private final boolean logarithmic;
    private final double yBottom;
    private final double yTop;
    private final double yStep;

    /**
     * @param maxY        the largest value drawn; a linear axis goes from zero to the first round number at or above
     *                    it, a logarithmic one to the first power of ten.
     * @param minY        the smallest positive value drawn: a logarithmic axis starts at the power of ten below it.
     * @param logarithmic whole decades, so that a tail a thousand times the median leaves the median readable.
     */
    PlotArea(final double maxY, final double minY, final boolean logarithmic)
    {
        this.logarithmic = logarithmic;
        final double max = maxY > 0 && Double.isFinite(maxY) ? maxY : 1;
        if (logarithmic)
        {
            yStep = 1;
            yTop = Math.ceil(Math.log10(max) - 1e-9);
            yBottom = Math.min(yTop - 1, Math.floor(Math.log10(minY > 0 && minY <= max ? minY : max) + 1e-9));
        }
        else
        {
            yStep = step(max);
            yTop = Math.ceil(max / yStep - 1e-9) * yStep;
            yBottom = 0;
        }
    }

    /** @return where a value goes on the page, from the top; on a logarithmic axis, at least its bottom. */
    double y(final double value)
    {
        final double share = logarithmic ?
            (Math.log10(Math.max(value, Math.pow(10, yBottom))) - yBottom) / (yTop - yBottom) :
            value / yTop;
        return TOP + PLOT_HEIGHT * (1 - share);
    }

    /** @return the gap between ticks for about {@link #TARGET_TICKS} of them: 1, 2 or 5 times a power of ten. */
    static double step(final double max)
    {
        final double rough = max / TARGET_TICKS;
        final double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        final double residual = rough / magnitude;
        return (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude;
    }

    /**
     * Open the svg element, with its title, the vertical axis, its grid and both axes' titles.
     *
     * @param labelDepth how far the horizontal axis's labels reach below it, where they are slanted; the chart grows
     *                   by what they need beyond its margin rather than let them run into the axis's title.
     */
    void open(
        final StringBuilder svg, final String title, final String xTitle, final String yTitle, final int labelDepth)
    {
        final int height = HEIGHT + Math.max(0, labelDepth - LABEL_DEPTH);
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
            .append("\" role=\"img\">\n");
        svg.append("<title>").append(escape(title)).append("</title>\n");
        svg.append("<rect class=\"plot\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"")
            .append(PLOT_WIDTH).append("\" height=\"").append(PLOT_HEIGHT).append("\"/>\n");
        final int ticks = (int)Math.round((yTop - yBottom) / yStep);
        for (int i = 0; i <= ticks; i++)
        {
            final double value = logarithmic ? Math.pow(10, yBottom + i) : i * yStep;
            final String y = coordinate(y(value));
            svg.append("<line class=\"grid\" x1=\"").append(LEFT).append("\" y1=\"").append(y).append("\" x2=\"")
                .append(LEFT + PLOT_WIDTH).append("\" y2=\"").append(y).append("\"/>\n");
            text(svg, "tick", LEFT - 6, y(value) + 4, "end", label(value));
        }
        text(svg, "axis", LEFT + PLOT_WIDTH / 2.0, height - 8, "middle", xTitle);
        svg.append("<text class=\"axis\" text-anchor=\"middle\" transform=\"translate(16,")
            .append(coordinate(TOP + PLOT_HEIGHT / 2.0)).append(") rotate(-90)\">").append(escape(yTitle))
            .append("</text>\n");
    }

    /** Draw the legend to the right of the plotting area and close the svg element. */
    void close(final StringBuilder svg, final List<Series> series, final boolean bars)
    {
        final int x = LEFT + PLOT_WIDTH + 16;
        int y = TOP + 8;
        for (final Series one : series)
        {
            final String colour = colour(one.colour());
            if (bars)
            {
                svg.append("<rect x=\"").append(x).append("\" y=\"").append(y - 6).append("\" width=\"18\" ")
                    .append("height=\"10\" fill=\"").append(colour).append("\"/>\n");
            }
            else
            {
                svg.append("<line x1=\"").append(x).append("\" y1=\"").append(y).append("\" x2=\"").append(x + 18)
                    .append("\" y2=\"").append(y).append("\" stroke=\"").append(colour).append("\" stroke-width=\"2\"")
                    .append(one.dashed() ? " stroke-dasharray=\"5,3\"" : "").append("/>\n");
            }
            for (final String line : wrap(one.name()))
            {
                text(svg, "legend", x + 24, y + 4, "start", line);
                y += LEGEND_LINE;
            }
            y += LEGEND_GAP;
        }
        svg.append("</svg>");
    }

    /** @return the name in lines of at most {@link #LEGEND_CHARACTERS}, broken at spaces where it has them. */
    static List<String> wrap(final String name)
    {
        final List<String> lines = new ArrayList<>();
        final StringBuilder line = new StringBuilder();
        for (final String word : name.split(" "))
        {
            if (!line.isEmpty() && line.length() + 1 + word.length() > LEGEND_CHARACTERS)
            {
                lines.add(line.toString());
                line.setLength(0);
            }
            line.append(line.isEmpty() ? "" : " ").append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    static String colour(final int index)
    {
        return PALETTE[Math.floorMod(index, PALETTE.length)];
    }

    static void text(
        final StringBuilder svg, final String type, final double x, final double y, final String anchor,
        final String text)
    {
        svg.append("<text class=\"").append(type).append("\" x=\"").append(coordinate(x)).append("\" y=\"")
            .append(coordinate(y)).append("\" text-anchor=\"").append(anchor).append("\">").append(escape(text))
            .append("</text>\n");
    }

    /** @return a tick's value, shortened with k, M or G, without trailing zeros. */
    static String label(final double value)
    {
        if (Math.abs(value) >= 1e9)
        {
            return plain(value / 1e9) + "G";
        }
        if (Math.abs(value) >= 1e6)
        {
            return plain(value / 1e6) + "M";
        }
        if (Math.abs(value) >= 1e4)
        {
            return plain(value / 1e3) + "k";
        }
        return plain(value);
    }

    private static String plain(final double value)
    {
        return BigDecimal.valueOf(value).setScale(3, RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
    }

    /** @return the largest finite x or y of the series' points, or zero. */
    static double max(final List<Series> series, final boolean x)
    {
        double max = 0;
        for (final Series one : series)
        {
            for (final Point point : one.points())
            {
                final double value = x ? point.x() : point.y();
                if (Double.isFinite(value))
                {
                    max = Math.max(max, value);
                }
            }
        }
        return max;
    }

    /** @return the smallest positive finite y of the series' points, or zero where there is none. */
    static double minPositiveY(final List<Series> series)
    {
        double min = Double.POSITIVE_INFINITY;
        for (final Series one : series)
        {
            for (final Point point : one.points())
            {
                if (point.y() > 0 && Double.isFinite(point.y()))
                {
                    min = Math.min(min, point.y());
                }
            }
        }
        return Double.isFinite(min) ? min : 0;
    }
}

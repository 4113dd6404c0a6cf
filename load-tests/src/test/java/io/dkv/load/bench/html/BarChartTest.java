package io.dkv.load.bench.html;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

import java.util.List;

import static io.dkv.load.bench.html.PlotArea.LEFT;
import static io.dkv.load.bench.html.PlotArea.PLOT_HEIGHT;
import static io.dkv.load.bench.html.PlotArea.PLOT_WIDTH;
import static io.dkv.load.bench.html.PlotArea.TOP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Grouped bars: a slot per category, the series side by side in its middle, each bar from zero to its value; a
 * missing value leaves a gap, long labels are slanted with room made for them, and a series must have a value per
 * category.
 */
class BarChartTest
{
    @Test
    void drawsEachBarInItsCategorysSlotFromZero()
    {
        final BarChart chart = new BarChart("t", "threads", "ops/s", List.of("1", "2"), List.of(
            new Series("dkv", 0, false, List.of(new Point(0, 50), new Point(0, 100))),
            new Series("Redis", 1, false, List.of(new Point(0, 25), new Point(0, Double.NaN)))));

        final List<Element> bars = HtmlPages.elements(HtmlPages.parse(chart.svg()), "rect").stream()
            .filter(rect -> "bar".equals(rect.getAttribute("class"))).toList();
        final double slot = PLOT_WIDTH / 2.0;
        final double width = slot * BarChart.GROUP_SHARE / 2;
        final double gap = slot * (1 - BarChart.GROUP_SHARE) / 2;
        assertEquals(List.of(
            bar(LEFT + gap, 50, width),
            bar(LEFT + gap + width, 25, width),
            bar(LEFT + slot + gap, 100, width)), bars.stream().map(BarChartTest::geometry).toList());
    }

    @Test
    void slantsLabelsTooLongForTheirSlotAndGrowsToHoldThem()
    {
        final List<String> categories = List.of("java -version", "redis-server", "compute node", "compute node, AOT");
        final BarChart chart = new BarChart("t", "process", "ms", categories, List.of(new Series("median", 0, false,
            List.of(new Point(0, 1), new Point(0, 2), new Point(0, 3), new Point(0, 4)))));

        final Element svg = HtmlPages.parse(chart.svg()).getDocumentElement();
        assertTrue(Integer.parseInt(svg.getAttribute("height")) > PlotArea.HEIGHT, chart::svg);
        assertTrue(chart.svg().contains("rotate(-25)\">compute node, AOT</text>"), chart::svg);
        assertEquals(List.of("step (exec of node", "2 to settled)"), PlotArea.wrap("step (exec of node 2 to settled)"));
    }

    @Test
    void refusesASeriesWithoutAValuePerCategory()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new BarChart("t", "x",
            "y", List.of("1", "2"), List.of(new Series("dkv", 0, false, List.of(new Point(0, 1))))));
        assertEquals("series 'dkv' has 1 values for 2 categories [1, 2]", ex.getMessage());
    }

    /** @return a bar as x, y, width, height, the axis going from 0 to 100. */
    private static String bar(final double x, final double value, final double width)
    {
        final double height = PLOT_HEIGHT * value / 100;
        return String.join(" ", Markup.coordinate(x), Markup.coordinate(TOP + PLOT_HEIGHT - height),
            Markup.coordinate(width), Markup.coordinate(height));
    }

    private static String geometry(final Element rect)
    {
        return String.join(" ", rect.getAttribute("x"), rect.getAttribute("y"), rect.getAttribute("width"),
            rect.getAttribute("height"));
    }
}

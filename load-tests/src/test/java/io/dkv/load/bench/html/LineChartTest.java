package io.dkv.load.bench.html;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.util.List;

import static io.dkv.load.bench.html.PlotArea.LEFT;
import static io.dkv.load.bench.html.PlotArea.PLOT_HEIGHT;
import static io.dkv.load.bench.html.PlotArea.PLOT_WIDTH;
import static io.dkv.load.bench.html.PlotArea.TOP;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A line chart puts known points where its axes say: from zero to a round number on linear axes, by decades on the
 * percentile scale, ticks labelled as percentiles.
 */
class LineChartTest
{
    @Test
    void placesPointsOnLinearAxesFromZeroToARoundNumber()
    {
        // x up to 20 and y up to 100: both axes end there, 20 and 100 being round
        final LineChart chart = new LineChart("t", "x", "y", LineChart.Scale.LINEAR,
            List.of(new Series("s", 0, false, List.of(new Point(0, 0), new Point(10, 50), new Point(20, 100)))));

        final String expected = String.join(" ",
            xy(LEFT, TOP + PLOT_HEIGHT),
            xy(LEFT + PLOT_WIDTH / 2.0, TOP + PLOT_HEIGHT / 2.0),
            xy(LEFT + PLOT_WIDTH, TOP));
        assertEquals(expected, polylines(chart).getFirst().getAttribute("points"));
    }

    @Test
    void placesPercentilesByDecadesOfOneOverTheTailAndLatenciesByDecades()
    {
        // x = 1 / (1 - p): 1 is the 0th percentile, 10 the 90th, 100 the 99th; y from 1 to 100 is two decades
        final LineChart chart = LineChart.percentiles("t", "latency",
            List.of(new Series("s", 0, false, List.of(new Point(1, 1), new Point(10, 10), new Point(100, 100)))));

        assertEquals(String.join(" ",
            xy(LEFT, TOP + PLOT_HEIGHT),
            xy(LEFT + PLOT_WIDTH / 2.0, TOP + PLOT_HEIGHT / 2.0),
            xy(LEFT + PLOT_WIDTH, TOP)), polylines(chart).getFirst().getAttribute("points"));
        final List<String> ticks = HtmlPages.elements(HtmlPages.parse(chart.svg()), "text").stream()
            .filter(text -> "tick".equals(text.getAttribute("class"))).map(Element::getTextContent).toList();
        assertTrue(ticks.containsAll(List.of("0%", "50%", "90%", "99%", "1", "10", "100")), ticks::toString);
    }

    @Test
    void keepsAtLeastTwoDecadesOfPercentilesAndLabelsTheNines()
    {
        final LineChart chart = LineChart.percentiles("t", "latency",
            List.of(new Series("s", 0, false, List.of(new Point(1, 5), new Point(2, 6)))));

        assertEquals(LEFT + PLOT_WIDTH, chart.x(100), 1e-9);
        assertEquals("99.9%", LineChart.percentile(1000));
        assertEquals("99.999%", LineChart.percentile(100_000));
        assertEquals("50%", LineChart.percentile(2));
    }

    private static List<Element> polylines(final Chart chart)
    {
        final Document svg = HtmlPages.parse(chart.svg());
        return HtmlPages.elements(svg, "polyline");
    }

    private static String xy(final double x, final double y)
    {
        return Markup.coordinate(x) + "," + Markup.coordinate(y);
    }
}

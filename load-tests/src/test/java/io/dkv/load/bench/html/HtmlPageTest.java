package io.dkv.load.bench.html;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A page is well-formed XML whatever its text holds, carries its charts inline and fetches nothing, shows each goal
 * by its verdict and refuses a table row that does not fit its headers.
 */
class HtmlPageTest
{
    private static final List<Series> CURVES =
        List.of(new Series("a <curve>", 0, false, List.of(new Point(1, 3), new Point(2, 5), new Point(100, 40))));

    @Test
    void isWellFormedAndSelfContainedWithItsChartsTablesAndGoals()
    {
        final String html = new HtmlPage("dkv bench <test> & more")
            .goals(List.of("fast: MET (1.0x)", "faster: MISSED (2.0x)", "fastest: NOT MEASURED (off)"))
            .list("Machine", List.of("machine: 2 cores, \"quoted\" & <odd>"))
            .charts("Plots", List.of(LineChart.percentiles("curves", "latency (us)", CURVES),
                new BarChart("bars", "threads", "ops/s", List.of("1", "2"),
                List.of(new Series("dkv", 0, false, List.of(new Point(1, 10), new Point(2, 20)))))))
            .heading("Tables")
            .table("a table", List.of("name", "value"), List.of(false, true),
                List.of(new String[]{"<b>", "1,000"}, new String[]{"a & b", "2"}), List.of("a note"))
            .folded("Method", List.of("one", "two"))
            .html();

        final Document page = HtmlPages.parsePage(html, "dkv bench <test> & more", 2, 1);
        final List<Element> cells = HtmlPages.elements(page, "td");
        assertEquals(List.of("<b>", "1,000", "a & b", "2"), cells.stream().map(Element::getTextContent).toList());
        assertEquals(List.of("", "number", "", "number"), cells.stream().map(cell -> cell.getAttribute("class"))
            .toList());
        final List<String> goalClasses = HtmlPages.elements(page, "li").stream()
            .filter(item -> !item.getAttribute("class").isEmpty()).map(item -> item.getAttribute("class")).toList();
        assertEquals(List.of("met", "missed", "other"), goalClasses);
        assertEquals(List.of("curves", "bars"),
            HtmlPages.elements(page, "figcaption").stream().map(Element::getTextContent).toList());
        assertTrue(html.contains("<style>"), "the style inline");
    }

    @Test
    void refusesARowThatDoesNotFitTheHeaders()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> new HtmlPage("t")
            .table("figures", List.of("a", "b"), List.of(false, false), List.<String[]>of(new String[]{"1"}),
            List.of()));
        assertEquals("row of 1 cells under 2 headers [a, b] in 'figures'", ex.getMessage());
    }
}

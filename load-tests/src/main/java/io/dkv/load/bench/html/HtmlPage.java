package io.dkv.load.bench.html;

import java.util.List;

import static io.dkv.load.bench.html.Markup.escape;

/**
 * One self-contained page of results: its style inline, its charts inline SVG, no script and no link to anything
 * outside it, so that it opens the same from a file, an attachment or an archive. Its markup is well-formed XML
 * (XHTML), so that a plain XML parser can read it back.
 */
public final class HtmlPage
{
    static final String STYLE = """
        body { font-family: system-ui, sans-serif; margin: 24px; color: #222; max-width: 1500px; }
        h1 { font-size: 1.6em; margin-bottom: 0.2em; }
        h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
        h3 { font-size: 1.05em; margin: 0.4em 0; }
        ul { padding-left: 1.2em; }
        li { margin: 0.15em 0; }
        .met { color: #1a7f37; }
        .missed { color: #c62828; font-weight: bold; }
        .other { color: #666; }
        .charts { display: flex; flex-wrap: wrap; gap: 16px; }
        figure { margin: 0; border: 1px solid #e4e4e4; padding: 8px; background: #fff; }
        figcaption { font-size: 0.9em; margin-bottom: 4px; font-weight: 600; max-width: 720px; }
        table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0; }
        th, td { border: 1px solid #ccc; padding: 3px 8px; }
        th { background: #f3f3f3; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; }
        .notes { font-size: 0.85em; color: #555; }
        details summary { cursor: pointer; }
        svg text { font-family: system-ui, sans-serif; }
        svg .tick { font-size: 11px; fill: #444; }
        svg .axis { font-size: 12px; fill: #222; }
        svg .legend { font-size: 12px; fill: #222; }
        svg .grid { stroke: #e6e6e6; stroke-width: 1; }
        svg .plot { fill: none; stroke: #999; stroke-width: 1; }
        """;

    private final String title;
    private final StringBuilder body = new StringBuilder();

    public HtmlPage(final String title)
    {
        this.title = title;
    }

    /** Add a heading over what follows. */
    public HtmlPage heading(final String heading)
    {
        body.append("<h2>").append(escape(heading)).append("</h2>\n");
        return this;
    }

    /** Add a heading and one item per line. */
    public HtmlPage list(final String heading, final List<String> lines)
    {
        heading(heading);
        items(lines);
        return this;
    }

    /** Add lines folded under a heading, open on a click: long and read once. */
    public HtmlPage folded(final String heading, final List<String> lines)
    {
        heading(heading);
        body.append("<details><summary>").append(lines.size()).append(" points</summary>\n");
        items(lines);
        body.append("</details>\n");
        return this;
    }

    /** Add the goals, each coloured by its verdict: MET, MISSED or anything else (not measured). */
    public HtmlPage goals(final List<String> lines)
    {
        heading("Goals");
        body.append("<ul>\n");
        for (final String line : lines)
        {
            final String verdict = line.contains(": MISSED") ? "missed" : line.contains(": MET") ? "met" : "other";
            body.append("<li class=\"").append(verdict).append("\">").append(escape(line)).append("</li>\n");
        }
        body.append("</ul>\n");
        return this;
    }

    /** Add charts side by side where the window is wide enough, each captioned with its title. */
    public HtmlPage charts(final String heading, final List<? extends Chart> charts)
    {
        if (charts.isEmpty())
        {
            return this;
        }
        heading(heading);
        body.append("<div class=\"charts\">\n");
        for (final Chart chart : charts)
        {
            body.append("<figure><figcaption>").append(escape(chart.title())).append("</figcaption>\n")
                .append(chart.svg()).append("\n</figure>\n");
        }
        body.append("</div>\n");
        return this;
    }

    /**
     * Add a table with its heading and the notes that explain it.
     *
     * @param rightAligned per column: a number, aligned right.
     * @param rows         each as many cells as there are headers.
     */
    public HtmlPage table(
        final String heading,
        final List<String> headers,
        final List<Boolean> rightAligned,
        final List<String[]> rows,
        final List<String> notes)
    {
        body.append("<h3>").append(escape(heading)).append("</h3>\n<table>\n<tr>");
        headers.forEach(header -> body.append("<th>").append(escape(header)).append("</th>"));
        body.append("</tr>\n");
        for (final String[] row : rows)
        {
            if (row.length != headers.size())
            {
                throw new IllegalArgumentException("row of " + row.length + " cells under " + headers.size() +
                    " headers " + headers + " in '" + heading + "'");
            }
            body.append("<tr>");
            for (int c = 0; c < row.length; c++)
            {
                body.append(rightAligned.get(c) ? "<td class=\"number\">" : "<td>").append(escape(row[c]))
                    .append("</td>");
            }
            body.append("</tr>\n");
        }
        body.append("</table>\n");
        if (!notes.isEmpty())
        {
            body.append("<div class=\"notes\">\n");
            items(notes);
            body.append("</div>\n");
        }
        return this;
    }

    private void items(final List<String> lines)
    {
        body.append("<ul>\n");
        lines.forEach(line -> body.append("<li>").append(escape(line)).append("</li>\n"));
        body.append("</ul>\n");
    }

    /** @return the page, complete. */
    public String html()
    {
        return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n" +
            "<meta charset=\"utf-8\"/>\n<title>" + escape(title) + "</title>\n<style>\n" + STYLE + "</style>\n" +
            "</head>\n<body>\n<h1>" + escape(title) + "</h1>\n" + body + "</body>\n</html>\n";
    }
}

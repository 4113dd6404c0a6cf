package io.dkv.load.check.harness;

import io.dkv.load.check.history.History;
import io.dkv.load.check.history.HistoryJson;
import io.dkv.load.check.history.Operation;
import org.agrona.collections.Int2IntHashMap;

import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * A self-contained HTML page (inline SVG, no scripts) showing every operation as a bar from its
 * invocation to its completion, one row per process: ok green, fail grey, unknown outcome orange
 * (drawn to the end), the operations that witness a violation red; faults of the nemesis as
 * shaded bands with their names. Hovering a bar shows the operation.
 */
final class TimelineHtml
{
    private static final int LEFT = 90;
    private static final int ROW = 14;
    private static final int TOP = 40;
    private static final double PIXELS_PER_SECOND = 40.0;

    private TimelineHtml()
    {
    }

    static String render(final String title, final History history, final CheckResult result, final List<NemesisEvent> faults)
    {
        final TreeSet<Integer> processes = new TreeSet<>();
        long end = 1;
        for (final Operation operation : history.operations())
        {
            processes.add(operation.process());
            end = Math.max(end, operation.completeTime() == Long.MAX_VALUE ? operation.invokeTime() : operation.completeTime());
        }
        for (final NemesisEvent fault : faults)
        {
            end = Math.max(end, fault.end());
        }
        final Int2IntHashMap rows = new Int2IntHashMap(-1);
        for (final int process : processes)
        {
            rows.put(process, rows.size());
        }
        final double scale = PIXELS_PER_SECOND / 1e9;
        final int width = LEFT + (int)Math.ceil(end * scale) + 20;
        final int height = TOP + rows.size() * ROW + 20;

        final StringBuilder html = new StringBuilder(256 + history.operations().size() * 160);
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title)).append("</title>\n")
            .append("<style>body{font:13px sans-serif;margin:16px} pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:24em}")
            .append(" .ok{fill:#4caf50} .fail{fill:#bbb} .info{fill:#ff9800} .bad{fill:#e53935;stroke:#000;stroke-width:1}")
            .append(" .fault{fill:#3f51b5;opacity:.12} text{font:11px sans-serif}</style></head><body>\n")
            .append("<h2>").append(escape(title)).append("</h2>\n")
            .append("<p>Verdict: <b>").append(result.verdict()).append("</b> (").append(escape(result.checker()))
            .append("); ").append(history.operations().size()).append(" operations by ").append(rows.size())
            .append(" processes; ").append(faults.size()).append(" faults. Bars: <span style=\"color:#4caf50\">ok</span>, ")
            .append("<span style=\"color:#999\">fail</span>, <span style=\"color:#ff9800\">unknown outcome</span>, ")
            .append("<span style=\"color:#e53935\">witness of the violation</span>; shaded: faults.</p>\n")
            .append("<pre>").append(escape(result.text())).append("</pre>\n")
            .append("<div style=\"overflow-x:auto\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
            .append("\" height=\"").append(height).append("\">\n");
        for (int second = 0; second * 1e9 <= end; second += 5)
        {
            final double x = LEFT + second * PIXELS_PER_SECOND;
            html.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>" +
                "<text x=\"%.1f\" y=\"%d\">%d s</text>%n", x, TOP - 12, x, height, x + 2, TOP - 16, second));
        }
        for (final NemesisEvent fault : faults)
        {
            final double x = LEFT + fault.start() * scale;
            final double w = Math.max(2, (fault.end() - fault.start()) * scale);
            html.append(String.format(Locale.ROOT, "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">" +
                "<title>%s</title></rect><text x=\"%.1f\" y=\"%d\">%s</text>%n", x, TOP - 8, w, height - TOP + 8,
                escape(fault.kind() + " " + fault.target() + " " + fault.detail()), x + 2, TOP - 2,
                escape(fault.kind() + " " + fault.target())));
        }
        for (final int process : processes)
        {
            html.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">p%d</text>%n", TOP + rows.get(process) * ROW + 10, process));
        }
        for (final Operation operation : history.operations())
        {
            final boolean bad = result.failing().contains(operation.invoke().index());
            final String style = bad ? "bad" : switch (operation.outcome())
            {
                case OK -> "ok";
                case FAIL -> "fail";
                default -> "info";
            };
            final long stop = operation.completeTime() == Long.MAX_VALUE ? end : operation.completeTime();
            final double x = LEFT + operation.invokeTime() * scale;
            final double w = Math.max(1.5, (stop - operation.invokeTime()) * scale);
            html.append(String.format(Locale.ROOT, "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\">" +
                "<title>%s</title></rect>%n", style, x, TOP + rows.get(operation.process()) * ROW + 2, w, ROW - 4,
                escape(describe(operation))));
        }
        html.append("</svg></div>\n</body></html>\n");
        return html.toString();
    }

    private static String describe(final Operation operation)
    {
        return "#" + operation.invoke().index() + " p" + operation.process() + " " + operation.f() +
            (operation.key() == null ? "" : " " + operation.key()) + " " + HistoryJson.valueText(operation.value()) + " -> " +
            operation.outcome().jsonName() +
            (operation.completion() != null && operation.completion().error() != null ? " (" + operation.completion().error() + ")" : "") +
            String.format(Locale.ROOT, " [%.3f s, %s]", operation.invokeTime() / 1e9,
                operation.completeTime() == Long.MAX_VALUE ? "never" :
                    String.format(Locale.ROOT, "%.3f s", operation.completeTime() / 1e9));
    }

    private static String escape(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

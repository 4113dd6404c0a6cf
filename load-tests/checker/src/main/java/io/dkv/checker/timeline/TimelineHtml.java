package io.dkv.checker.timeline;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Operation;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.Long2LongHashMap;
import org.agrona.collections.LongArrayList;

import java.util.List;
import java.util.Locale;

/**
 * A self-contained HTML page (inline SVG, no scripts) showing every operation as a bar from its
 * invocation to its completion: ok green, fail grey, unknown outcome orange (to when the client gave
 * up on it, or to the end when it never heard), the operations that witness a violation red; faults
 * of the nemesis as shaded bands with their names, the run's phases (the heal, the final reads) as green bands named
 * at the foot. A process's operations share a row; a row is
 * reused by a process that starts after the row's last one ended (an unknown outcome retires a
 * process), so there are about as many rows as workers. Hovering a bar shows the operation.
 */
public final class TimelineHtml
{
    private static final int LEFT = 90;
    private static final int ROW = 14;
    private static final int TOP = 40;
    private static final double PIXELS_PER_SECOND = 40.0;

    private TimelineHtml()
    {
    }

    /**
     * @param title    the page's title and heading.
     * @param history  the history drawn.
     * @param result   what a checker said of it: shown above the drawing, its failing operations drawn red.
     * @param faults   the faults injected while it was recorded, in the history's time; empty when there were none.
     * @return the page, one string.
     */
    public static String render(
        final String title, final History history, final Judgement result, final List<Fault> faults)
    {
        return render(title, history, result, faults, List.of());
    }

    /**
     * @param phases the phases of the run beside its faults (the heal, the final reads); empty when it had none.
     * @return the page, one string.
     */
    public static String render(
        final String title, final History history, final Judgement result, final List<Fault> faults,
        final List<Phase> phases)
    {
        long end = 1;
        for (final Operation operation : history.operations())
        {
            end = Math.max(end, Math.max(operation.invokeTime(), barEnd(operation, 0)));
        }
        for (final Fault fault : faults)
        {
            end = Math.max(end, fault.end());
        }
        for (final Phase phase : phases)
        {
            end = Math.max(end, phase.end());
        }
        final Int2IntHashMap rows = rows(history, end);
        int rowCount = 0;
        for (final Operation operation : history.operations())
        {
            rowCount = Math.max(rowCount, rows.get(operation.process()) + 1);
        }
        final double scale = PIXELS_PER_SECOND / 1e9;
        final int width = LEFT + (int)Math.ceil(end * scale) + 20;
        final int height = TOP + rowCount * ROW + 20;

        final StringBuilder html = new StringBuilder(256 + history.operations().size() * 160);
        html.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(escape(title))
            .append("</title>\n")
            .append("<style>body{font:13px sans-serif;margin:16px} " +
                "pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:24em}")
            .append("</style></head><body>\n")
            .append("<h2>").append(escape(title)).append("</h2>\n")
            .append("<p>Verdict: <b>").append(result.verdict()).append("</b> (").append(escape(result.checker()))
            .append("); ").append(history.operations().size()).append(" operations by ").append(rows.size())
            .append(" processes in ").append(rowCount).append(" rows; ").append(faults.size())
            .append(" faults").append(phases.isEmpty() ? "" : ", " + phases.size() + " phases")
            .append(". Bars: <span style=\"color:#4caf50\">ok</span>, ")
            .append("<span style=\"color:#999\">fail</span>, <span style=\"color:#ff9800\">unknown outcome</span>, ")
            .append("<span style=\"color:#e53935\">witness of the violation</span>; shaded: faults, " +
                "<span style=\"color:#2e7d32\">phases</span>.</p>\n")
            .append("<pre>").append(escape(result.text())).append("</pre>\n")
            .append("<div style=\"overflow-x:auto\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width)
            .append("\" height=\"").append(height).append("\">\n")
            // the drawing's own style, so that it reads the same cut out of the page
            .append("<style>.ok{fill:#4caf50} .fail{fill:#bbb} .info{fill:#ff9800} " +
                ".bad{fill:#e53935;stroke:#000;stroke-width:1}")
            .append(" .fault{fill:#3f51b5;opacity:.12} .phase{fill:#2e7d32;opacity:.10} text{font:11px sans-serif}")
            .append("</style>\n")
            .append("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
        for (int second = 0; second * 1e9 <= end; second += 5)
        {
            final double x = LEFT + second * PIXELS_PER_SECOND;
            html.append(String.format(Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%d\">%d " +
                "s</text>%n", x, TOP - 12, x, height, x + 2, TOP - 16, second));
        }
        for (final Fault fault : faults)
        {
            final double x = LEFT + fault.start() * scale;
            final double w = Math.max(2, (fault.end() - fault.start()) * scale);
            html.append(String.format(Locale.ROOT,
                "<rect class=\"fault\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" " +
                "height=\"%d\"><title>%s</title></rect><text x=\"%.1f\" y=\"%d\">%s</text>%n", x, TOP - 8, w,
                height - TOP + 8,
                escape(fault.kind() + " " + fault.target() + " " + fault.detail()), x + 2, TOP - 2,
                escape(fault.kind() + " " + fault.target())));
        }
        for (final Phase phase : phases)
        {
            final double x = LEFT + phase.start() * scale;
            final double w = Math.max(2, (phase.end() - phase.start()) * scale);
            html.append(String.format(Locale.ROOT,
                "<rect class=\"phase\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" " +
                "height=\"%d\"><title>%s</title></rect><text x=\"%.1f\" y=\"%d\" fill=\"#2e7d32\">%s</text>%n", x,
                TOP - 8, w, height - TOP + 8, escape(phase.name() + " " + phase.detail()), x + 2, height - 6,
                escape(phase.name())));
        }
        for (int row = 0; row < rowCount; row++)
        {
            html.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">row %d</text>%n", TOP + row * ROW + 10,
                row));
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
            final long stop = barEnd(operation, end);
            final double x = LEFT + operation.invokeTime() * scale;
            final double w = Math.max(1.5, (stop - operation.invokeTime()) * scale);
            html.append(String.format(Locale.ROOT,
                "<rect class=\"%s\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\"><title>%s</title></rect>%n", style,
                x, TOP + rows.get(operation.process()) * ROW + 2, w, ROW - 4,
                escape(describe(operation))));
        }
        html.append("</svg></div>\n</body></html>\n");
        return html.toString();
    }

    /** @return when the bar ends: its completion, the info that gave up on it, or {@code end} when nothing came. */
    private static long barEnd(final Operation operation, final long end)
    {
        return operation.completion() == null ? end : operation.completion().time();
    }

    /** @return the row of each process: the first whose last process ended before this one began. */
    private static Int2IntHashMap rows(final History history, final long end)
    {
        final Long2LongHashMap firstStart = new Long2LongHashMap(Long.MAX_VALUE);
        final Long2LongHashMap lastEnd = new Long2LongHashMap(Long.MIN_VALUE);
        final IntArrayList processes = new IntArrayList();
        for (final Operation operation : history.operations())
        {
            final int process = operation.process();
            if (!firstStart.containsKey(process))
            {
                firstStart.put(process, operation.invokeTime());
                processes.addInt(process);
            }
            lastEnd.put(process, Math.max(lastEnd.get(process), barEnd(operation, end)));
        }
        // operations come in invocation order, so processes come in order of their first invocation
        final Int2IntHashMap rows = new Int2IntHashMap(-1);
        final LongArrayList rowFreeAfter = new LongArrayList();
        for (int i = 0; i < processes.size(); i++)
        {
            final int process = processes.getInt(i);
            int row = 0;
            while (row < rowFreeAfter.size() && rowFreeAfter.getLong(row) >= firstStart.get(process))
            {
                row++;
            }
            if (row == rowFreeAfter.size())
            {
                rowFreeAfter.addLong(lastEnd.get(process));
            }
            else
            {
                rowFreeAfter.setLong(row, lastEnd.get(process));
            }
            rows.put(process, row);
        }
        return rows;
    }

    private static String describe(final Operation operation)
    {
        return "#" + operation.invoke().index() + " p" + operation.process() + " " + operation.f() +
            (operation.key() == null ? "" : " " + operation.key()) + " " + HistoryJson.valueText(operation.value()) +
            " -> " + operation.outcome().jsonName() +
            (operation.completion() != null && operation.completion().error() != null ?
                " (" + operation.completion().error() + ")" : "") +
            String.format(Locale.ROOT, " [%.3f s, %s]", operation.invokeTime() / 1e9,
                operation.completeTime() == Long.MAX_VALUE ? "never" :
                    String.format(Locale.ROOT, "%.3f s", operation.completeTime() / 1e9));
    }

    private static String escape(final String text)
    {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

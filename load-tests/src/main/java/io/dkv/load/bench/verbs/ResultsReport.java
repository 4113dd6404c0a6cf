package io.dkv.load.bench.verbs;

import io.dkv.load.bench.BenchReport;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.Measurement;
import io.dkv.load.bench.Report;
import io.dkv.load.bench.TextTable;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.load.bench.Formats.nanos;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * The verbs benchmark's results, with the machine, the method and the goals, for a terminal or
 * as Markdown.
 */
final class ResultsReport implements Report
{
    static final String TITLE = "dkv bench verbs";

    private final BenchReport frame;
    private final TextTable table = new TextTable(List.of(
        new TextTable.Column("provider", false),
        new TextTable.Column("op", false),
        new TextTable.Column("size", true),
        new TextTable.Column("floor", false),
        new TextTable.Column("p50 ns", true),
        new TextTable.Column("floor p50", true),
        new TextTable.Column("p50 ratio", true),
        new TextTable.Column("p99 ns", true),
        new TextTable.Column("floor p99", true),
        new TextTable.Column("p99 ratio", true),
        new TextTable.Column("ops/s", true),
        new TextTable.Column("floor ops/s", true),
        new TextTable.Column("ops/s ratio", true)));

    /**
     * @param machine where it ran.
     * @param method  how it measured, one point per line.
     * @param rows    the results.
     * @param goals   the goals to evaluate against the results.
     */
    ResultsReport(final MachineInfo machine, final List<String> method, final List<ResultRow> rows,
        final List<Goal> goals)
    {
        for (final ResultRow row : rows)
        {
            final Measurement verbs = row.verbs();
            final Measurement floor = row.floor();
            table.addRow(
                row.provider().toString(),
                row.operation().name(),
                row.size() + " B",
                row.floorName(),
                nanos(verbs.p50Nanos()),
                nanos(floor.p50Nanos()),
                ratio(row.p50Ratio()),
                nanos(verbs.p99Nanos()),
                nanos(floor.p99Nanos()),
                ratio(row.p99Ratio()),
                opsPerSecond(verbs.opsPerSecond()),
                opsPerSecond(floor.opsPerSecond()),
                ratio(row.throughputRatio()));
        }
        final List<String> goalLines = new ArrayList<>();
        for (final Goal goal : goals)
        {
            goalLines.addAll(goal.evaluate(rows));
        }
        this.frame = new BenchReport(TITLE, machine, method, goalLines);
    }

    public void printText(final PrintWriter out)
    {
        frame.printText(out, text ->
        {
            table.printText(text);
            text.println();
        });
    }

    public void printMarkdown(final PrintWriter out)
    {
        frame.printMarkdown(out, markdown ->
        {
            table.printMarkdown(markdown);
            markdown.println();
        });
    }
}

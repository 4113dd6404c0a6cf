package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.List;

/**
 * A benchmark's report made of sections: the frame {@link BenchReport} prints (title, machine,
 * method, goals) around its tables, for a terminal or as Markdown.
 */
public final class SectionedReport implements Report
{
    private final String title;
    private final MachineInfo machine;
    private final List<String> method;
    private final List<ReportSection> sections;
    private final List<String> goalLines;

    public SectionedReport(
        final String title,
        final MachineInfo machine,
        final List<String> method,
        final List<ReportSection> sections,
        final List<String> goalLines)
    {
        this.title = title;
        this.machine = machine;
        this.method = List.copyOf(method);
        this.sections = List.copyOf(sections);
        this.goalLines = List.copyOf(goalLines);
    }

    public List<String> goalLines()
    {
        return goalLines;
    }

    public void printText(final PrintWriter out)
    {
        BenchReport.printText(out, title, machine, method, text -> sections.forEach(section -> section.printText(text)),
            goalLines);
    }

    public void printMarkdown(final PrintWriter out)
    {
        BenchReport.printMarkdown(out, title, machine, method,
            markdown -> sections.forEach(section -> section.printMarkdown(markdown)),
            goalLines);
    }
}

package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.List;

/**
 * A benchmark's report made of sections: the frame {@link BenchReport} prints (title, machine,
 * method, goals) around its tables, for a terminal or as Markdown; {@link HtmlOption} lays the same out as a page.
 */
public final class SectionedReport implements Report
{
    private final BenchReport frame;
    private final List<ReportSection> sections;

    public SectionedReport(
        final String title,
        final MachineInfo machine,
        final List<String> method,
        final List<ReportSection> sections,
        final List<String> goalLines)
    {
        this.frame = new BenchReport(title, machine, method, goalLines);
        this.sections = List.copyOf(sections);
    }

    /** @return the title, machine, method and goals around the tables. */
    public BenchReport frame()
    {
        return frame;
    }

    public List<ReportSection> sections()
    {
        return sections;
    }

    public List<String> goalLines()
    {
        return frame.goals();
    }

    public void printText(final PrintWriter out)
    {
        frame.printText(out, text -> sections.forEach(section -> section.printText(text)));
    }

    public void printMarkdown(final PrintWriter out)
    {
        frame.printMarkdown(out, markdown -> sections.forEach(section -> section.printMarkdown(markdown)));
    }
}

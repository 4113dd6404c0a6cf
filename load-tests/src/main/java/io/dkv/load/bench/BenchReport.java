package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;

/**
 * The frame every benchmark report shares: its title, the machine, the method one point per line,
 * the report's own tables, then its goals; for a terminal or as Markdown.
 */
public final class BenchReport
{
    private BenchReport()
    {
    }

    /**
     * @param tables prints the report's tables, each followed by a blank line.
     */
    public static void printText(
        final PrintWriter out,
        final String title,
        final MachineInfo machine,
        final List<String> method,
        final Consumer<PrintWriter> tables,
        final List<String> goals)
    {
        out.println(title);
        out.println();
        for (final String line : machine.lines())
        {
            out.println(line);
        }
        for (final String line : method)
        {
            out.println(line);
        }
        out.println();
        tables.accept(out);
        for (final String line : goals)
        {
            out.println("goal " + line);
        }
        out.flush();
    }

    /**
     * @param tables prints the report's tables as Markdown, each followed by a blank line.
     */
    public static void printMarkdown(
        final PrintWriter out,
        final String title,
        final MachineInfo machine,
        final List<String> method,
        final Consumer<PrintWriter> tables,
        final List<String> goals)
    {
        out.println("## " + title);
        out.println();
        for (final String line : machine.lines())
        {
            out.println("- " + line);
        }
        for (final String line : method)
        {
            out.println("- " + line);
        }
        out.println();
        tables.accept(out);
        out.println("Goals:");
        out.println();
        for (final String line : goals)
        {
            out.println("- " + line);
        }
        out.flush();
    }
}

package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.List;
import java.util.function.Consumer;

/**
 * The frame every benchmark report shares: its title, the machine, the method one point per line, the report's own
 * tables, then its goals; for a terminal or as Markdown.
 *
 * @param title   what ran, e.g. {@code dkv bench verbs}.
 * @param machine where it ran.
 * @param method  how it measured, one point per line.
 * @param goals   each goal with its verdict, one per line.
 */
public record BenchReport(String title, MachineInfo machine, List<String> method, List<String> goals)
{
    public BenchReport
    {
        method = List.copyOf(method);
        goals = List.copyOf(goals);
    }

    /**
     * @param tables prints the report's tables, each followed by a blank line.
     */
    public void printText(final PrintWriter out, final Consumer<PrintWriter> tables)
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
    public void printMarkdown(final PrintWriter out, final Consumer<PrintWriter> tables)
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

package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.List;

/**
 * One table of the report, with its title and the notes needed to read it.
 *
 * @param title what the table shows.
 * @param notes one point per line, printed under the table.
 * @param table the figures.
 */
public record ReportSection(String title, List<String> notes, TextTable table)
{
    public ReportSection
    {
        notes = List.copyOf(notes);
    }

    public void printText(final PrintWriter out)
    {
        out.println(title);
        out.println();
        table.printText(out);
        for (final String note : notes)
        {
            out.println("  " + note);
        }
        out.println();
    }

    public void printMarkdown(final PrintWriter out)
    {
        out.println("### " + title);
        out.println();
        table.printMarkdown(out);
        out.println();
        for (final String note : notes)
        {
            out.println("- " + note);
        }
        if (!notes.isEmpty())
        {
            out.println();
        }
    }
}

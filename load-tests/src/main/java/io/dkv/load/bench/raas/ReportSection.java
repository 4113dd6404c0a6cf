package io.dkv.load.bench.raas;

import io.dkv.load.bench.TextTable;

import java.io.PrintWriter;
import java.util.List;

/**
 * One table of the report, with its title and the notes needed to read it.
 *
 * @param title what the table shows.
 * @param notes one point per line, printed under the table.
 * @param table the figures.
 */
record ReportSection(String title, List<String> notes, TextTable table)
{
    ReportSection
    {
        notes = List.copyOf(notes);
    }

    void printText(final PrintWriter out)
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

    void printMarkdown(final PrintWriter out)
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

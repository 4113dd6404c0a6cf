package io.dkv.load.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Reads the tables back out of a benchmark's text report, for tests of what it printed.
 */
public final class ReportTables
{
    private ReportTables()
    {
    }

    /**
     * @param titles how the titles of the tables wanted begin.
     * @return the rows of each table by its title's beginning: a title line, a blank line, the header,
     * then rows until an indented note or a blank line; cells are two or more spaces apart, and
     * every row has as many as the header.
     */
    public static Map<String, List<String[]>> tables(final String text, final List<String> titles)
    {
        final Map<String, List<String[]>> tables = new LinkedHashMap<>();
        final List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            final String title = titles.stream().filter(line::startsWith).findFirst().orElse(null);
            if (title == null)
            {
                continue;
            }
            final int columns = lines.get(i + 2).trim().split(" {2,}").length;
            final List<String[]> rows = new ArrayList<>();
            for (int r = i + 3; r < lines.size() && !lines.get(r).isBlank() && !lines.get(r).startsWith("  "); r++)
            {
                final String[] cells = lines.get(r).trim().split(" {2,}");
                assertEquals(columns, cells.length, "cells of " + lines.get(r));
                rows.add(cells);
            }
            tables.put(title, rows);
        }
        return tables;
    }
}

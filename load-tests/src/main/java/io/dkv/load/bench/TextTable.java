package io.dkv.load.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table of text cells, printed either with padded columns for a terminal or as Markdown.
 */
public final class TextTable
{
    /**
     * @param header       the column's title.
     * @param rightAligned numbers are right-aligned, text left-aligned.
     */
    public record Column(String header, boolean rightAligned)
    {
    }

    private static final String COLUMN_GAP = "  ";

    private final List<Column> columns;
    private final List<String[]> rows = new ArrayList<>();

    public TextTable(final List<Column> columns)
    {
        this.columns = List.copyOf(columns);
    }

    public void addRow(final String... cells)
    {
        if (cells.length != columns.size())
        {
            throw new IllegalArgumentException("row of " + cells.length + " cells for a table of " + columns.size() +
                " columns");
        }
        rows.add(cells.clone());
    }

    public List<Column> columns()
    {
        return columns;
    }

    /** @return the rows, each a copy of its cells. */
    public List<String[]> rows()
    {
        return rows.stream().map(String[]::clone).toList();
    }

    public int rowCount()
    {
        return rows.size();
    }

    public void printText(final PrintWriter out)
    {
        final int[] widths = new int[columns.size()];
        for (int c = 0; c < widths.length; c++)
        {
            widths[c] = columns.get(c).header().length();
            for (final String[] row : rows)
            {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        final String[] headers = columns.stream().map(Column::header).toArray(String[]::new);
        printPadded(out, headers, widths);
        for (final String[] row : rows)
        {
            printPadded(out, row, widths);
        }
    }

    private void printPadded(final PrintWriter out, final String[] cells, final int[] widths)
    {
        final StringBuilder line = new StringBuilder();
        for (int c = 0; c < cells.length; c++)
        {
            if (c > 0)
            {
                line.append(COLUMN_GAP);
            }
            final String padding = " ".repeat(widths[c] - cells[c].length());
            if (columns.get(c).rightAligned())
            {
                line.append(padding).append(cells[c]);
            }
            else
            {
                line.append(cells[c]).append(padding);
            }
        }
        out.println(line.toString().stripTrailing());
    }

    public void printMarkdown(final PrintWriter out)
    {
        final StringBuilder header = new StringBuilder("|");
        final StringBuilder rule = new StringBuilder("|");
        for (final Column column : columns)
        {
            header.append(' ').append(escape(column.header())).append(" |");
            rule.append(column.rightAligned() ? " ---: |" : " --- |");
        }
        out.println(header);
        out.println(rule);
        for (final String[] row : rows)
        {
            final StringBuilder line = new StringBuilder("|");
            for (final String cell : row)
            {
                line.append(' ').append(escape(cell)).append(" |");
            }
            out.println(line);
        }
    }

    private static String escape(final String cell)
    {
        return cell.replace("|", "\\|");
    }
}

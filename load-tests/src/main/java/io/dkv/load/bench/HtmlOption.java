package io.dkv.load.bench;

import io.dkv.load.bench.html.Chart;
import io.dkv.load.bench.html.HtmlPage;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code --html}: the file a benchmark also writes its results to as one self-contained page, its plots drawn by the
 * benchmark beside the tables and goals of the text report. Shared by the benchmarks as a picocli mixin, as
 * {@link MarkdownOption} is.
 */
public final class HtmlOption
{
    @Option(names = "--html", paramLabel = "FILE",
        description = "Also write the results to this file as one self-contained HTML page: plots (inline SVG) of " +
            "the figures beside the report's tables, goals and machine; no script, nothing fetched.")
    private Path html;

    /**
     * Refuse a file that cannot be written before the benchmark runs rather than after it.
     *
     * @param spec the command, for the error.
     */
    public void validate(final CommandSpec spec)
    {
        if (html == null)
        {
            return;
        }
        if (Files.isDirectory(html))
        {
            throw new ParameterException(spec.commandLine(), "--html " + html + ": is a directory; name a file");
        }
        if (Files.exists(html) && !Files.isWritable(html))
        {
            throw new ParameterException(spec.commandLine(), "--html " + html + ": the file cannot be written");
        }
        // the directories missing are created at the end: the nearest one that exists must take them
        Path existing = html.toAbsolutePath().getParent();
        while (existing != null && !Files.exists(existing))
        {
            existing = existing.getParent();
        }
        if (existing != null && (!Files.isDirectory(existing) || !Files.isWritable(existing)))
        {
            throw new ParameterException(spec.commandLine(), "--html " + html + ": cannot write in " + existing +
                (Files.isDirectory(existing) ? "" : ", which is not a directory"));
        }
    }

    /**
     * When {@code --html} names a file, write the report there as a page: title, goals, machine, plots, tables and
     * the method.
     *
     * @param report the results.
     * @param charts draws the plots; called only when a page is written.
     */
    public void publish(final SectionedReport report, final Supplier<List<? extends Chart>> charts)
        throws IOException
    {
        if (html == null)
        {
            return;
        }
        final BenchReport frame = report.frame();
        final HtmlPage page = new HtmlPage(frame.title())
            .goals(frame.goals())
            .list("Machine", frame.machine().lines())
            .charts("Plots", charts.get())
            .heading("Tables");
        for (final ReportSection section : report.sections())
        {
            final List<TextTable.Column> columns = section.table().columns();
            page.table(section.title(), columns.stream().map(TextTable.Column::header).toList(),
                columns.stream().map(TextTable.Column::rightAligned).toList(), section.table().rows(),
                section.notes());
        }
        page.folded("Method", frame.method());
        try
        {
            MarkdownFile.write(html, "HTML", out -> out.print(page.html()));
        }
        catch (final IOException ex)
        {
            throw new IOException("--html " + html + ": cannot write the page: " + ex, ex);
        }
    }
}

package io.dkv.load.bench;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * {@code --markdown}: the file a benchmark also writes its results to, as Markdown. Shared by the benchmarks as a
 * picocli mixin, so that each says it and publishes its report the same way.
 */
public final class MarkdownOption
{
    @Option(names = "--markdown", paramLabel = "FILE", description = "Also write the results as Markdown to this file.")
    private Path markdown;

    /**
     * Print the report for the terminal and, when {@code --markdown} names a file, write it there as Markdown too.
     *
     * @param report the results.
     * @param out    the terminal.
     */
    public void publish(final Report report, final PrintWriter out) throws IOException
    {
        report.printText(out);
        if (markdown != null)
        {
            MarkdownFile.write(markdown, report::printMarkdown);
        }
    }
}

package io.dkv.load.bench;

import java.io.PrintWriter;

/**
 * A benchmark's results as it prints them: for a terminal, and as Markdown for a file.
 */
public interface Report
{
    void printText(PrintWriter out);

    void printMarkdown(PrintWriter out);
}

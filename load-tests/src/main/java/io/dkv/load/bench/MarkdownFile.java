package io.dkv.load.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Writes a benchmark's results to a file, as Markdown or as a page, creating its directory if needed.
 */
public final class MarkdownFile
{
    private MarkdownFile()
    {
    }

    /**
     * @param file    where to write; replaced if it exists.
     * @param content prints the Markdown.
     */
    public static void write(final Path file, final Consumer<PrintWriter> content) throws IOException
    {
        write(file, "Markdown", content);
    }

    /**
     * @param file    where to write; replaced if it exists.
     * @param format  what the content is, for the error should it fail.
     * @param content prints the results.
     */
    public static void write(final Path file, final String format, final Consumer<PrintWriter> content)
        throws IOException
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file)))
        {
            content.accept(out);
            if (out.checkError())
            {
                throw new IOException("cannot write the " + format + " results to " + file);
            }
        }
    }
}

package io.dkv.load.check.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How many operations the clients' live history files (JSON lines, one event each) say completed ok so far: what
 * {@code --min-ok} waits for, so that a run on a slow or loaded machine goes on until it has something to check
 * rather than ending at a wall-clock time with a handful of operations.
 */
final class OkOperations
{
    private static final Pattern OK = Pattern.compile("\"type\"\\s*:\\s*\"ok\"");

    private OkOperations()
    {
    }

    /**
     * @param histories the history files written so far, each perhaps still being written (a partial last line is
     *                  no completion yet).
     * @return the completions of type ok in them.
     */
    static long count(final List<Path> histories)
    {
        long ok = 0;
        for (final Path history : histories)
        {
            // a decoder that replaces, not one that throws: a line being written may end inside a character
            try (BufferedReader in =
                new BufferedReader(new InputStreamReader(Files.newInputStream(history), StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = in.readLine()) != null)
                {
                    if (line.endsWith("}") && OK.matcher(line).find())
                    {
                        ok++;
                    }
                }
            }
            catch (final NoSuchFileException gone)
            {
                // a client's file not made yet: nothing of it to count
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException("cannot read the history " + history + ": " + ex.getMessage(), ex);
            }
        }
        return ok;
    }
}

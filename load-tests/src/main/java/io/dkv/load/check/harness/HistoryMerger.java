package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Joins the history files of the client processes into one history, by time: the processes share
 * the host's monotonic clock and one origin. A client killed while writing leaves a torn last
 * line, which is dropped; its open invocation then has no completion, so its outcome is unknown.
 */
final class HistoryMerger
{
    private HistoryMerger()
    {
    }

    static History merge(final List<Path> files)
    {
        final List<Op> events = new ArrayList<>();
        for (final Path file : files)
        {
            events.addAll(read(file));
        }
        // a stable sort keeps each file's own order where times are equal
        events.sort(Comparator.comparingLong(Op::time));
        return History.of(events);
    }

    private static List<Op> read(final Path file)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the client history " + file + ": " + ex.getMessage(), ex);
        }
        final List<Op> events = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank())
            {
                continue;
            }
            try
            {
                events.add(HistoryJson.parse(line));
            }
            catch (final IllegalArgumentException ex)
            {
                if (i == lines.size() - 1)
                {
                    break; // torn by a kill mid-write
                }
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + ex.getMessage(), ex);
            }
        }
        return events;
    }
}

package io.dkv.cli.cluster;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines a role adds to its log from some point on, for {@code dkv up} to repeat on its own output: the
 * autoscaler's line of each sync would otherwise sit in autoscale.log, where an operator watching {@code up} does
 * not look. Only whole lines are given; a line still being written waits for the next look.
 */
final class LogRelay
{
    private final Path log;
    private long offset;

    /**
     * @param log    the log followed.
     * @param offset where its new lines start, e.g. its size once the lines up already printed were written.
     */
    LogRelay(final Path log, final long offset)
    {
        this.log = log;
        this.offset = offset;
    }

    /** @return a relay of the lines written to {@code log} after now. */
    static LogRelay fromEnd(final Path log)
    {
        try
        {
            return new LogRelay(log, Files.size(log));
        }
        catch (final IOException ex)
        {
            return new LogRelay(log, 0);
        }
    }

    /** @return the whole lines written since the last call, without their line ends; none when it cannot be read. */
    List<String> newLines()
    {
        final List<String> lines = new ArrayList<>();
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r"))
        {
            final long length = file.length();
            if (length <= offset)
            {
                return lines;
            }
            final byte[] bytes = new byte[(int)Math.min(length - offset, 1 << 20)];
            file.seek(offset);
            file.readFully(bytes);
            int start = 0;
            for (int i = 0; i < bytes.length; i++)
            {
                if (bytes[i] == '\n')
                {
                    lines.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            offset += start;
        }
        catch (final IOException ex)
        {
            // gone or not yet there: nothing to repeat
        }
        return lines;
    }
}

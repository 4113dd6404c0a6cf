package io.dkv.load.check.nemesis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The lines of a membership change driver's log (a joining memory node's, a drain command's) that say how its change
 * goes, each sent to the nemesis log once, as they come.
 */
final class ProgressLines
{
    /** What a change's driver prints at each step: its phases, its passes, how it ended. */
    private static final Pattern PROGRESS = Pattern.compile(
        "membership change|pass \\d+:|draining memory node|cannot be drained|has left the memory tier");
    private static final Pattern ENDED = Pattern.compile("membership change (done|aborted|failed|interrupted)");

    private final Path file;
    private final String prefix;
    private final Consumer<String> log;
    private int seen;
    private boolean ended;

    ProgressLines(final Path file, final String prefix, final Consumer<String> log)
    {
        this.file = file;
        this.prefix = prefix;
        this.log = log;
    }

    void logNew()
    {
        final String text = text(file);
        final List<String> lines = text.lines().toList();
        // a last line without its end may be half written: it is read again next time
        final int complete = text.endsWith("\n") ? lines.size() : Math.max(seen, lines.size() - 1);
        for (int i = seen; i < complete; i++)
        {
            if (PROGRESS.matcher(lines.get(i)).find())
            {
                log.accept(prefix + lines.get(i).strip());
            }
            ended |= ENDED.matcher(lines.get(i)).find();
        }
        seen = complete;
    }

    /** @return true once the log said the change ended, one way or another. */
    boolean ended()
    {
        return ended;
    }

    /** @return the log's lines so far, none when it cannot be read now. */
    static List<String> read(final Path file)
    {
        return text(file).lines().toList();
    }

    private static String text(final Path file)
    {
        try
        {
            return file == null || !Files.exists(file) ? "" : Files.readString(file);
        }
        catch (final IOException | RuntimeException ex)
        {
            // a log being written may end in a partial character: it is read again next time
            return "";
        }
    }
}

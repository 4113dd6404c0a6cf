package io.dkv.compute.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * What redis 7.0 lets a script call, by its commands' flags (the file beside this class): a command flagged noscript
 * is refused to every script, and one that writes (or may replicate) to read-only ones (EVAL_RO, FCALL_RO, no-writes);
 * one flagged denyoom is refused where its key's memory node is full.
 * Names are redis's, lower case, a subcommand's {@code container|sub}.
 */
public final class CommandRules
{
    private static final String FILE = "redis-7.0-script-rules.txt";
    private static final Set<String> WRITES = new HashSet<>();
    private static final Set<String> NO_SCRIPT = new HashSet<>();
    private static final Set<String> DENY_OOM = new HashSet<>();
    /** redis 7.0's commands flagged MAY_REPLICATE and not WRITE, of those the file names: not writes for MISCONF. */
    private static final Set<String> MAY_REPLICATE_ONLY =
        Set.of("eval", "evalsha", "fcall", "pfcount", "publish", "spublish");

    static
    {
        try (InputStream in = CommandRules.class.getResourceAsStream(FILE))
        {
            if (in == null)
            {
                throw new IllegalStateException("the script rules of redis's commands are missing from the " +
                    "classpath: " + FILE);
            }
            for (final String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n"))
            {
                final String[] words = line.strip().split(" ");
                if (words.length == 2 && words[0].equals("write"))
                {
                    WRITES.add(words[1]);
                }
                else if (words.length == 2 && words[0].equals("noscript"))
                {
                    NO_SCRIPT.add(words[1]);
                }
                else if (words.length == 2 && words[0].equals("denyoom"))
                {
                    DENY_OOM.add(words[1]);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the script rules of redis's commands " + FILE, ex);
        }
    }

    private CommandRules()
    {
    }

    /** @return true for a command that writes or may replicate: refused to read-only scripts. */
    static boolean writes(final String name)
    {
        return WRITES.contains(name);
    }

    /**
     * @return true for a command of redis's flag WRITE, not one only MAY_REPLICATE (scripts, which are refused the
     * writes they call instead, PFCOUNT, PUBLISH): what a disk that refuses writes refuses (MISCONF), and what makes
     * EXEC a write.
     */
    public static boolean flaggedWrite(final String name)
    {
        return WRITES.contains(name) && !MAY_REPLICATE_ONLY.contains(name);
    }

    /** @return true for a command of redis's flag DENYOOM: one that may grow memory, refused at the limit. */
    public static boolean deniedAtFull(final String name)
    {
        return DENY_OOM.contains(name);
    }

    /** @return true for a command no script may call. */
    static boolean noScript(final String name)
    {
        return NO_SCRIPT.contains(name);
    }
}

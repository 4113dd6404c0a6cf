package io.dkv.compute.command;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * The names of every command redis-server 7.0 has (its command table, from the file beside this class): a name among
 * them that this node does not serve gets an error saying so, rather than redis's unknown command error, so that a
 * client sees what is missing and not a typo.
 */
final class RedisCommandNames
{
    private static final String FILE = "redis-7.0-commands.txt";
    private static final Set<String> NAMES = load();

    private RedisCommandNames()
    {
    }

    /** @param lowerCaseName a command's name in lower case. */
    static boolean known(final String lowerCaseName)
    {
        return NAMES.contains(lowerCaseName);
    }

    /** @return how many names redis has. */
    static int count()
    {
        return NAMES.size();
    }

    private static Set<String> load()
    {
        try (InputStream in = RedisCommandNames.class.getResourceAsStream(FILE))
        {
            if (in == null)
            {
                throw new IllegalStateException("the list of redis's commands is missing from the classpath: " + FILE);
            }
            final Set<String> names = new HashSet<>();
            for (final String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n"))
            {
                final String name = line.strip();
                if (!name.isEmpty() && !name.startsWith("#"))
                {
                    names.add(name);
                }
            }
            return Set.copyOf(names);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read the list of redis's commands " + FILE, ex);
        }
    }
}

package io.dkv.compute;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A scripted scenario over several connections (a, b, n...), each step sent to redis-server and to a compute node in
 * turn, their replies compared byte for byte. A step is a request and its reply ({@code a SORT l}), a request whose
 * reply a later step reads ({@code b !BLPOP k 0}, then {@code b <}), or {@code blocked N}, which waits until each
 * server counts N blocked connections (INFO's blocked_clients). {@code => reply} names what redis must give; a leading
 * {@code ~} sends without comparing (HELLO, whose reply names the server), a leading {@code ^} compares an array's
 * elements in any order (a set's, whose order redis does not fix). Words in single or double quotes may hold spaces;
 * {@code ''} is an empty argument. Every scenario starts from FLUSHALL.
 */
final class DifferentialScenario
{
    private DifferentialScenario()
    {
    }

    /** Run the steps of the scenario {@code name} against both of {@code servers}' servers. */
    static void run(final StoreBesideRedis servers, final String name, final List<String> steps) throws Exception
    {
        assumeTrue(servers.redisInstalled(), "redis-server is not installed (.ci/run installs it)");
        final Side redis = new Side(servers.redis().port());
        final Side dkv = new Side(servers.store().port());
        try
        {
            redis.call("a", "FLUSHALL");
            dkv.call("a", "FLUSHALL");
            for (final String step : steps)
            {
                if (step.startsWith("blocked "))
                {
                    final int count = Integer.parseInt(step.substring("blocked ".length()));
                    redis.awaitBlocked(count);
                    dkv.awaitBlocked(count);
                    continue;
                }
                final boolean compared = !step.startsWith("~");
                final boolean unordered = step.startsWith("^");
                final String body = compared && !unordered ? step : step.substring(1);
                final int arrow = body.indexOf(" => ");
                final String expected = arrow < 0 ? null : body.substring(arrow + 4);
                final String[] words = words(arrow < 0 ? body : body.substring(0, arrow));
                final String theirs = redis.step(words);
                final String ours = dkv.step(words);
                if (compared)
                {
                    assertEquals(unordered ? elements(theirs) : theirs, unordered ? elements(ours) : ours,
                        () -> name + ", step '" + step + "': redis answered " + theirs + ", dkv " + ours);
                }
                if (expected != null)
                {
                    assertEquals(expected, theirs, () -> name + ", step '" + step + "': redis's reply");
                }
            }
        }
        finally
        {
            redis.close();
            dkv.close();
        }
    }

    /** @return a flat array reply's elements in order of their text, for a reply whose order is the server's own. */
    static List<String> elements(final String reply)
    {
        if (!reply.startsWith("*") || !reply.contains("["))
        {
            return List.of(reply);
        }
        final String inside = reply.substring(reply.indexOf('[') + 1, reply.length() - 1);
        final List<String> items = new ArrayList<>(inside.isEmpty() ? List.of() : Arrays.asList(inside.split(", ")));
        items.sort(null);
        return items;
    }

    /** @return a step's words: split at spaces, but not inside single or double quotes; quotes are dropped. */
    static String[] words(final String line)
    {
        final List<String> words = new ArrayList<>();
        final StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (final char c : line.toCharArray())
        {
            if (quote == 0 && (c == '\'' || c == '"'))
            {
                quote = c;
                any = true;
            }
            else if (c == quote)
            {
                quote = 0;
            }
            else if (c == ' ' && quote == 0)
            {
                if (any)
                {
                    words.add(word.toString());
                }
                word.setLength(0);
                any = false;
            }
            else
            {
                word.append(c);
                any = true;
            }
        }
        if (any)
        {
            words.add(word.toString());
        }
        return words.toArray(new String[0]);
    }

    /** One server's connections by name. */
    private static final class Side
    {
        private final int port;
        private final Map<String, RawResp> connections = new HashMap<>();
        private final List<RawResp> opened = new ArrayList<>();

        Side(final int port)
        {
            this.port = port;
        }

        RawResp connection(final String name) throws IOException
        {
            RawResp connection = connections.get(name);
            if (connection == null)
            {
                connection = new RawResp(port);
                connections.put(name, connection);
                opened.add(connection);
            }
            return connection;
        }

        String call(final String name, final String... command) throws IOException
        {
            return connection(name).call(command);
        }

        String step(final String[] words) throws IOException
        {
            final String name = words[0];
            if (words[1].equals("<"))
            {
                return connection(name).read();
            }
            final String[] command = Arrays.copyOfRange(words, 1, words.length);
            if (command[0].startsWith("!"))
            {
                command[0] = command[0].substring(1);
                connection(name).send(command);
                return "";
            }
            return connection(name).call(command);
        }

        void awaitBlocked(final int count) throws Exception
        {
            try (RawResp info = new RawResp(port))
            {
                MetaCluster.await("blocked_clients:" + count + " on port " + port, () ->
                {
                    try
                    {
                        return info.call("INFO", "clients").contains("blocked_clients:" + count + "\r\n");
                    }
                    catch (final IOException ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                });
            }
        }

        void close() throws IOException
        {
            for (final RawResp connection : opened)
            {
                connection.close();
            }
        }
    }
}

package io.dkv.compute;

import org.junit.jupiter.params.provider.Arguments;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * One scenario of a differential test: steps on named connections, each run against redis-server and a compute node,
 * their replies compared. A step is {@code <connection> <command words>}, where
 * <ul>
 * <li>a leading {@code ~} leaves the replies uncompared (ids, times, HELLO's server name), a leading {@code ^}
 * compares an array's elements in any order (a set's, whose order redis does not fix), and a trailing
 * {@code => reply} says what redis-server answers, so that a scenario also checks what it assumes of redis;</li>
 * <li>{@code !} before the command sends it without reading (a connection that blocks or subscribes), and {@code <}
 * as the command reads one reply; {@code close} closes the connection;</li>
 * <li>{@code <name>} stands for the id CLIENT ID gave the connection named; words in single or double quotes may
 * hold spaces, and {@code ''} is an empty argument;</li>
 * <li>{@code blocked N} waits until each server counts N blocked clients; {@code sleep N} waits N ms.</li>
 * </ul>
 */
final class DifferentialScenario
{
    private DifferentialScenario()
    {
    }

    /** @return a scenario for a parameterized test: its name, then its steps. */
    static Arguments scenario(final String name, final String... steps)
    {
        return Arguments.of(name, List.of(steps));
    }

    /** Run the scenario against both of {@code servers}' servers, from FLUSHALL; skipped without redis-server. */
    static void run(final StoreBesideRedis servers, final String name, final List<String> steps) throws Exception
    {
        assumeTrue(servers.redisInstalled(), "redis-server is not installed (.ci/run installs it)");
        run(name, steps, servers.redis().port(), servers.store().port(), "FLUSHALL");
    }

    /**
     * @param clear a command both servers run first on a connection of their own (FLUSHALL, a DEL of keys).
     */
    static void run(final String name, final List<String> steps, final int redisPort, final int dkvPort,
        final String... clear) throws Exception
    {
        final Side redis = new Side(redisPort);
        final Side dkv = new Side(dkvPort);
        try
        {
            redis.connection("clear").call(clear);
            dkv.connection("clear").call(clear);
            for (final String step : steps)
            {
                if (step.startsWith("blocked "))
                {
                    final int count = Integer.parseInt(step.substring("blocked ".length()));
                    awaitBlocked(redisPort, count);
                    awaitBlocked(dkvPort, count);
                    continue;
                }
                if (step.startsWith("sleep "))
                {
                    Thread.sleep(Long.parseLong(step.substring("sleep ".length())));
                    continue;
                }
                final boolean compared = !step.startsWith("~");
                final boolean unordered = step.startsWith("^");
                final String body = compared && !unordered ? step : step.substring(1);
                final int arrow = body.indexOf(" => ");
                final String expected = arrow < 0 ? null : body.substring(arrow + 4);
                final String[] words = words(arrow < 0 ? body : body.substring(0, arrow));
                final String theirs = redis.step(words.clone());
                final String ours = dkv.step(words.clone());
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

    /** Wait until the server on {@code port} counts {@code count} blocked clients (INFO's blocked_clients). */
    static void awaitBlocked(final int port, final int count) throws Exception
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

    /** One server's connections by name, with the id each had from CLIENT ID. */
    private static final class Side
    {
        private final int port;
        private final Map<String, RawResp> connections = new HashMap<>();
        private final Map<String, String> ids = new HashMap<>();
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

        /** @return the reply read, or "" for a request whose replies later steps read. */
        String step(final String[] words) throws IOException
        {
            final String name = words[0];
            if (words[1].equals("<"))
            {
                return connection(name).read();
            }
            if (words[1].equals("close") && words.length == 2)
            {
                connections.remove(name).close();
                return "";
            }
            final String[] command = Arrays.copyOfRange(words, 1, words.length);
            for (int i = 0; i < command.length; i++)
            {
                if (command[i].startsWith("<") && command[i].endsWith(">") &&
                    ids.containsKey(command[i].substring(1, command[i].length() - 1)))
                {
                    command[i] = ids.get(command[i].substring(1, command[i].length() - 1));
                }
            }
            if (command[0].startsWith("!"))
            {
                command[0] = command[0].substring(1);
                connection(name).send(command);
                return "";
            }
            final String reply = connection(name).call(command);
            if (command.length == 2 && command[0].equalsIgnoreCase("CLIENT") && command[1].equalsIgnoreCase("ID"))
            {
                ids.put(name, reply.substring(1));
            }
            return reply;
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

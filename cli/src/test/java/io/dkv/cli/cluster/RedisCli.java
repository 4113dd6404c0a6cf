package io.dkv.cli.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real redis-cli, run once per command against a port of the loopback address, as a person would. */
final class RedisCli
{
    private static final long EXIT_TIMEOUT_MS = 60_000;

    private final int port;

    RedisCli(final int port)
    {
        this.port = port;
    }

    /** @return why redis-cli cannot be run here, or null when it can. */
    static String missingReason()
    {
        try
        {
            final Process process = new ProcessBuilder("redis-cli", "--version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS) && process.exitValue() == 0 ? null :
                "redis-cli --version failed";
        }
        catch (final IOException ex)
        {
            return "redis-cli is not installed (apt-get install redis-tools): " + ex.getMessage();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "interrupted while looking for redis-cli";
        }
    }

    /** @return what redis-cli printed for the command, trimmed; it must exit 0. */
    String call(final String... command) throws IOException, InterruptedException
    {
        final List<String> arguments = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
        arguments.addAll(List.of(command));
        final Process process = new ProcessBuilder(arguments).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS), "redis-cli " + arguments + " did not exit");
        assertEquals(0, process.exitValue(), () -> arguments + " printed " + output);
        return output;
    }
}

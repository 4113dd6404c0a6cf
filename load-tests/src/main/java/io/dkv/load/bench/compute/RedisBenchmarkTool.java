package io.dkv.load.bench.compute;

import io.dkv.load.bench.ycsb.ChildProcesses;
import io.dkv.load.bench.ycsb.Executables;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code redis-benchmark} (redis-tools), run against one server: SET then GET over the same keys, or other
 * tests of its.
 */
final class RedisBenchmarkTool
{
    static final String BINARY = "redis-benchmark";
    static final String INSTALL_HINT = "apt-get install redis-tools";
    private static final long RUN_TIMEOUT_MS = 600_000;

    private final Path binary;

    RedisBenchmarkTool(final Path binary)
    {
        this.binary = binary;
    }

    static Optional<Path> find()
    {
        return Executables.find(BINARY);
    }

    /** @return what {@code redis-benchmark --version} says, e.g. "redis-benchmark 7.0.15". */
    String version() throws IOException, InterruptedException
    {
        return run(List.of(binary.toString(), "--version")).strip();
    }

    /**
     * SET over random keys of the keyspace, then GET over the same: the GETs find values.
     *
     * @return the figures of SET and of GET.
     * @throws IllegalStateException when it fails or prints no figures for either, with its output.
     */
    Map<String, RedisBenchmarkFigures> setThenGet(
        final String host, final int port, final Setting setting, final long requests, final long keyspace,
        final int valueBytes) throws IOException, InterruptedException
    {
        return tests(host, port, setting, "set,get", List.of("SET", "GET"), requests, keyspace, valueBytes);
    }

    /** The tests of {@code -t} that {@link #rowName} knows, in redis-benchmark's order. */
    static final List<String> TESTS =
        List.of("set", "get", "incr", "lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "zadd", "zpopmin",
            "mset");

    /** @return the row redis-benchmark prints for test {@code test} of {@link #TESTS}. */
    static String rowName(final String test)
    {
        return "mset".equals(test) ? "MSET (10 keys)" : test.toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * redis-benchmark's {@code -t tests} over random keys of the keyspace.
     *
     * @param expected what it calls the tests' rows, e.g. "MSET (10 keys)".
     * @return the figures of each test, by the name it gives it.
     * @throws IllegalStateException when it fails or prints no figures for any of {@code expected}, with its output.
     */
    Map<String, RedisBenchmarkFigures> tests(
        final String host, final int port, final Setting setting, final String tests, final List<String> expected,
        final long requests, final long keyspace, final int valueBytes) throws IOException, InterruptedException
    {
        final List<String> command =
            new ArrayList<>(List.of(binary.toString(), "-h", host, "-p", Integer.toString(port),
            "-t", tests, "-n", Long.toString(requests * setting.multiplier()), "-c",
            Integer.toString(setting.clients()),
            "-P", Integer.toString(setting.pipeline()), "-r", Long.toString(keyspace), "-d",
            Integer.toString(valueBytes),
            "--csv"));
        final String output = run(command);
        final Map<String, RedisBenchmarkFigures> figures = RedisBenchmarkFigures.parse(output);
        if (!figures.keySet().containsAll(expected))
        {
            throw new IllegalStateException(String.join(" ", command) + " printed no figures for each of " + expected +
                ":\n" + output);
        }
        return figures;
    }

    private static String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final Thread stopOnExit = ChildProcesses.stopOnExit(process::destroyForcibly, "redis-benchmark-stop");
        try
        {
            // its output is a few lines: read whole once it exits (the pipe holds them meanwhile)
            if (!process.waitFor(RUN_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                ChildProcesses.stop(List.of(process));
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + RUN_TIMEOUT_MS +
                    " ms");
            }
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0)
            {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue() +
                    ":\n" + output);
            }
            return output;
        }
        finally
        {
            ChildProcesses.closed(stopOnExit);
        }
    }
}

package io.dkv.load.bench.ycsb;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code redis-server}, started for one benchmark: on 127.0.0.1 at a free port, without
 * persistence, in a temporary directory; stopped when closed, or when the JVM exits (Ctrl-C).
 */
public final class RedisServer implements AutoCloseable
{
    public static final String BINARY = "redis-server";
    public static final String HOST = "127.0.0.1";
    public static final String INSTALL_HINT = "apt-get install redis-server";
    private static final long START_TIMEOUT_MS = 10_000;
    private static final long STOP_TIMEOUT_MS = 5_000;
    private static final int START_ATTEMPTS = 3;

    private final Process process;
    private final Path directory;
    private final int port;
    private final String version;
    private final Thread stopOnExit;

    private RedisServer(final Process process, final Path directory, final int port, final String version)
    {
        this.process = process;
        this.directory = directory;
        this.port = port;
        this.version = version;
        this.stopOnExit = ChildProcesses.stopOnExit(this::stop, "redis-server-stop");
    }

    /** @return the redis-server on the PATH (or in /usr/bin, /usr/sbin), if one is installed. */
    public static Optional<Path> find()
    {
        return Executables.find(BINARY);
    }

    /**
     * @throws IllegalStateException when it does not answer a PING in time, with the end of its log.
     */
    public static RedisServer start(final Path binary) throws IOException, InterruptedException
    {
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < START_ATTEMPTS; attempt++)
        {
            // the port is free now; another process may take it before redis-server does, then try again
            try
            {
                return startAt(binary, freePort());
            }
            catch (final IllegalStateException ex)
            {
                failure = ex;
            }
        }
        throw failure;
    }

    private static RedisServer startAt(final Path binary, final int port) throws IOException, InterruptedException
    {
        final Path directory = Files.createTempDirectory("dkv-redis-");
        final Path log = directory.resolve("redis.log");
        final Process process = new ProcessBuilder(
            binary.toString(),
            "--bind", HOST,
            "--port", Integer.toString(port),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--dir", directory.toString(),
            "--logfile", log.toString())
            .redirectErrorStream(true)
            .redirectOutput(directory.resolve("redis.out").toFile())
            .start();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (true)
        {
            try (Jedis jedis = new Jedis(HOST, port))
            {
                jedis.ping();
                return new RedisServer(process, directory, port, version(jedis.info("server")));
            }
            catch (final JedisException ex)
            {
                if (!process.isAlive() || System.nanoTime() > deadline)
                {
                    final String reason = process.isAlive() ? "did not answer within " + START_TIMEOUT_MS + " ms" :
                        "exited with " + process.exitValue();
                    final String tail = tail(log);
                    process.destroyForcibly().waitFor(STOP_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                    delete(directory);
                    throw new IllegalStateException(binary + " on " + HOST + ":" + port + " " + reason +
                        "; its log ends:\n" + tail);
                }
                Thread.sleep(20);
            }
        }
    }

    /** @return the server process's CPU time. */
    CpuClock cpu()
    {
        return CpuClock.of(process.toHandle());
    }

    public int port()
    {
        return port;
    }

    public String version()
    {
        return version;
    }

    public void close()
    {
        stop();
        ChildProcesses.closed(stopOnExit);
    }

    private void stop()
    {
        ChildProcesses.stop(List.of(process));
        delete(directory);
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST)))
        {
            return socket.getLocalPort();
        }
    }

    private static String version(final String info)
    {
        return info.lines()
            .filter(line -> line.startsWith("redis_version:"))
            .map(line -> line.substring("redis_version:".length()).trim())
            .findFirst()
            .orElse("unknown version");
    }

    private static String tail(final Path log)
    {
        try
        {
            if (!Files.exists(log))
            {
                return "(no log written)";
            }
            final List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        }
        catch (final IOException ex)
        {
            return "(cannot read " + log + ": " + ex.getMessage() + ")";
        }
    }

    private static void delete(final Path directory)
    {
        try (Stream<Path> paths = Files.walk(directory))
        {
            for (final Path path : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete redis-server's directory " + directory, ex);
        }
    }
}

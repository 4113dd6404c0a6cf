package io.dkv.compute;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Debian's redis-server for the differential tests, on a free loopback port, with no persistence and one database
 * (dkv has one keyspace, so SELECT answers as such a redis does).
 */
final class RedisServer implements AutoCloseable
{
    private final Process process;
    private final int port;

    private RedisServer(final Process process, final int port)
    {
        this.process = process;
        this.port = port;
    }

    /** @return the binary's path, or null when it is not installed. */
    static String binary(final String name)
    {
        for (final String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator))
        {
            final Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate))
            {
                return candidate.toString();
            }
        }
        return null;
    }

    static RedisServer start(final String binary, final Path dir) throws IOException, InterruptedException
    {
        return start(binary, dir, new String[0]);
    }

    /** @param extra further options, e.g. {@code --cluster-enabled yes}. */
    static RedisServer start(final String binary, final Path dir, final String... extra)
        throws IOException, InterruptedException
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(binary, "--port",
            Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--databases", "1",
            "--dir", dir.toString()));
        command.addAll(java.util.List.of(extra));
        final Process process = new ProcessBuilder(command)
            .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            try (Socket probe = new Socket("127.0.0.1", port))
            {
                return new RedisServer(process, port);
            }
            catch (final IOException ex)
            {
                if (System.nanoTime() > deadline || !process.isAlive())
                {
                    process.destroyForcibly();
                    throw new IOException("redis-server did not start on port " + port + ": " +
                        Files.readString(dir.resolve("redis.log")), ex);
                }
                Thread.sleep(20);
            }
        }
    }

    int port()
    {
        return port;
    }

    public void close()
    {
        process.destroy();
        try
        {
            if (!process.waitFor(10, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

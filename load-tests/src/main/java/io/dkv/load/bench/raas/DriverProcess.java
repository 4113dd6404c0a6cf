package io.dkv.load.bench.raas;

import io.dkv.load.DkvMain;
import io.dkv.load.bench.Provider;
import io.dkv.raas.RaasException;
import io.dkv.raas.meta.MetaEndpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A standalone driver as operators run it, {@code dkv driver}, in a JVM of its own started with this
 * JVM's class path and the flags dkv needs; its output goes to a log file, whose end every error
 * shows.
 */
final class DriverProcess implements AutoCloseable
{
    static final long START_TIMEOUT_MS = 30_000;
    static final long EXIT_TIMEOUT_MS = 10_000;
    static final String HEAP = "-Xmx512m";
    private static final Pattern SERVING = Pattern.compile("serving node (\\d+) at ");
    /** The JVM options of this process that the child needs as well: module access and the collector. */
    private static final List<String> INHERITED_PREFIXES = List.of(
        "--add-opens", "--add-exports", "--enable-native-access", "--sun-misc-unsafe-memory-access", "-XX:+Use");
    private static final int LOG_TAIL_CHARS = 4096;

    private final String name;
    private final Process process;
    private final Path log;
    private final long nodeId;
    /** Stops the driver when this JVM is stopped (Ctrl-C) before the benchmark closes it. */
    private final Thread stopOnExit;

    private DriverProcess(final String name, final Process process, final Path log, final long nodeId, final Thread stopOnExit)
    {
        this.name = name;
        this.process = process;
        this.log = log;
        this.nodeId = nodeId;
        this.stopOnExit = stopOnExit;
    }

    /**
     * Start {@code dkv driver} and wait until it serves.
     *
     * @param provider   the provider its device opens.
     * @param name       the driver's name, which clients attach by.
     * @param meta       the MetaServer it joins the cluster through.
     * @param properties system properties for the child (driver settings, see {@code RaasConfiguration}).
     * @param log        where its stdout and stderr go.
     */
    static DriverProcess start(
        final Provider provider, final String name, final MetaEndpoint meta, final Map<String, String> properties, final Path log)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String option : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (INHERITED_PREFIXES.stream().anyMatch(option::startsWith))
            {
                command.add(option);
            }
        }
        command.add(HEAP);
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DkvMain.class.getName());
        command.addAll(List.of("driver", "--name", name, "--provider", provider.verbsName(),
            "--address", RaasNodes.LOOPBACK_ADDRESS, "--meta", meta.toString()));
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start the standalone driver '" + name + "': " + ex.getMessage(), ex);
        }
        final Thread stopOnExit = new Thread(process::destroy, "dkv-bench-stop-" + name);
        Runtime.getRuntime().addShutdownHook(stopOnExit);
        try
        {
            return new DriverProcess(name, process, log, awaitServing(name, process, log), stopOnExit);
        }
        catch (final RuntimeException ex)
        {
            process.destroyForcibly();
            removeHook(stopOnExit);
            throw ex;
        }
    }

    private static long awaitServing(final String name, final Process process, final Path log)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (true)
        {
            final Matcher matcher = SERVING.matcher(read(log));
            if (matcher.find())
            {
                return Long.parseLong(matcher.group(1));
            }
            if (!process.isAlive())
            {
                throw new RaasException("standalone driver '" + name + "' exited with " + process.exitValue() +
                    " before serving:\n" + tail(log));
            }
            if (System.nanoTime() > deadline)
            {
                throw new RaasException("standalone driver '" + name + "' did not serve within " + START_TIMEOUT_MS + " ms:\n" +
                    tail(log));
            }
            try
            {
                Thread.sleep(20);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new RaasException("interrupted while starting standalone driver '" + name + "'", ex);
            }
        }
    }

    private static void removeHook(final Thread hook)
    {
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook runs anyway
        }
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.readString(log, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    private static String tail(final Path log)
    {
        final String text = read(log);
        return text.length() <= LOG_TAIL_CHARS ? text : "..." + text.substring(text.length() - LOG_TAIL_CHARS);
    }

    /** @return the end of what the driver wrote, for an error about it. */
    String logTail()
    {
        return tail(log);
    }

    String name()
    {
        return name;
    }

    /** @return the node the driver serves, as the MetaServer knows it. */
    long nodeId()
    {
        return nodeId;
    }

    /** @return the process id, to look at its memory or CPU. */
    long pid()
    {
        return process.pid();
    }

    /**
     * Stop the driver as Ctrl-C does (it closes its clients and deregisters), killing it when it does
     * not exit in time.
     */
    public void close()
    {
        removeHook(stopOnExit);
        process.destroy();
        try
        {
            if (!process.waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly().waitFor(EXIT_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

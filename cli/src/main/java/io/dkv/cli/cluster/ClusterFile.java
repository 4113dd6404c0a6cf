package io.dkv.cli.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Properties;

/**
 * What {@code dkv up} started, for the commands that use it: the driver to attach to and the MetaServer.
 * Written by {@code dkv up}, removed when it stops. It names no memory nodes: which of them hold keys is the
 * membership the MetaServer keeps, which a drain or join changes while the cluster runs (the clients of
 * {@code dkv put}, {@code get} and {@code del} read it as they connect).
 *
 * @param upPid       the process of {@code dkv up}.
 * @param provider    the verbs provider of the cluster.
 * @param driverName  the standalone driver clients attach to.
 * @param meta        the MetaServer's endpoint.
 * @param secretFile  the cluster secret file (for commands that call the MetaServer themselves, such as
 *                    {@code dkv meta evict}; put, get and del go through the driver, which holds it).
 * @param computePorts the loopback ports the compute nodes serve RESP on (redis-cli -p PORT), none when it runs none.
 */
public record ClusterFile(
    long upPid, String provider, String driverName, String meta, String secretFile,
    int[] computePorts)
{
    /** @return where {@code dkv up} writes it unless told otherwise. */
    public static Path defaultPath()
    {
        return Path.of(System.getProperty("java.io.tmpdir"), "dkv-up", "cluster.properties");
    }

    /**
     * @throws IllegalStateException when there is none (no local cluster runs), saying how to start one.
     */
    public static ClusterFile read(final Path path)
    {
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalStateException("no local cluster runs (" + path +
                " does not exist): start one with ./dkv up");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + path + ": " + ex.getMessage(), ex);
        }
        try
        {
            return new ClusterFile(
                Long.parseLong(properties.getProperty("up.pid")),
                properties.getProperty("provider"),
                properties.getProperty("driver.name"),
                properties.getProperty("meta"),
                properties.getProperty("cluster.secret.file", ""),
                Arrays.stream(properties.getProperty("compute.ports", "").split(",")).filter(port -> !port.isEmpty())
                    .mapToInt(Integer::parseInt).toArray());
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException(path + " is not a cluster file of dkv up: " + ex, ex);
        }
    }

    /** Write it whole or not at all (a reader never sees half of it). */
    public void write(final Path path)
    {
        final Properties properties = new Properties();
        properties.setProperty("up.pid", Long.toString(upPid));
        properties.setProperty("provider", provider);
        properties.setProperty("driver.name", driverName);
        properties.setProperty("meta", meta);
        properties.setProperty("cluster.secret.file", secretFile);
        properties.setProperty("compute.ports",
            String.join(",", Arrays.stream(computePorts).mapToObj(Integer::toString).toList()));
        try
        {
            Files.createDirectories(path.getParent());
            final Path partial = path.resolveSibling(path.getFileName() + ".partial");
            try (Writer writer = Files.newBufferedWriter(partial, StandardCharsets.UTF_8))
            {
                properties.store(writer, "written by dkv up; removed when it stops");
            }
            Files.move(partial, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot write " + path + ": " + ex.getMessage(), ex);
        }
    }

    /** @return true while the {@code dkv up} that wrote it runs. */
    public boolean isLive()
    {
        return ProcessHandle.of(upPid).map(ProcessHandle::isAlive).orElse(false);
    }
}

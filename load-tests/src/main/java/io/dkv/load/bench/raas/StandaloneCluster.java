package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.agrona.CloseHelper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A small cluster on this host as operators would run one: a MetaServer (in this process), standalone
 * drivers ({@code dkv driver}, each in a process of its own) that this process attaches to, and
 * memory nodes (embedded drivers in this process) that register with the MetaServer and hold the
 * regions read. Everything it started stops, and its files go, when it closes.
 */
final class StandaloneCluster implements AutoCloseable
{
    static final long META_NODE_ID = 1;
    /** Long enough that a memory node whose heartbeat is delayed by a busy benchmark stays registered. */
    static final int LEASE_MS = 60_000;

    private final Provider provider;
    private final Path workDir;
    private final MetaServer meta;
    private final List<AutoCloseable> started = new ArrayList<>();
    private int driverCount;
    private final Path secretFile;

    /**
     * Start the MetaServer.
     *
     * @param provider whose devices every node opens.
     */
    StandaloneCluster(final Provider provider)
    {
        this.provider = provider;
        try
        {
            workDir = Files.createTempDirectory("dkv-bench-cluster-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create a directory for the benchmark's MetaServer", ex);
        }
        // the drivers are processes of their own: they prove membership with a secret in a file only they can read
        secretFile = workDir.resolve("cluster-secret");
        final MetaServerContext context = new MetaServerContext()
            .clusterSecret(io.dkv.raas.meta.ClusterSecret.generate(secretFile))
            .nodeId(META_NODE_ID)
            .dataDir(workDir.resolve("meta"))
            .leaseMs(LEASE_MS);
        context.raas().verbs(verbs(provider));
        try
        {
            meta = MetaServer.start(context);
        }
        catch (final RuntimeException ex)
        {
            delete(workDir);
            throw ex;
        }
    }

    private static VerbsContext verbs(final Provider provider)
    {
        return new VerbsContext().provider(provider.verbsName()).tcpAddress(RaasNodes.LOOPBACK_ADDRESS);
    }

    MetaEndpoint endpoint()
    {
        return meta.endpoint();
    }

    /**
     * Start a standalone driver that joins the cluster through the MetaServer.
     *
     * @param label      part of its name and log file.
     * @param properties its settings, as system properties.
     */
    DriverProcess startDriver(final String label, final Map<String, String> properties)
    {
        final String name = "dkv-bench-" + ProcessHandle.current().pid() + "-" + label + "-" + driverCount++;
        final DriverProcess driver = DriverProcess.start(provider, name, meta.endpoint(), secretFile, properties,
            workDir.resolve(name + ".log"));
        started.add(driver);
        return driver;
    }

    /** @return this process attached to the driver, closed with the cluster. */
    Raas attach(final DriverProcess driver)
    {
        return attach(driver, new RaasContext());
    }

    /** @return this process attached to the driver with these settings (a class, a weight), closed with the cluster. */
    Raas attach(final DriverProcess driver, final RaasContext context)
    {
        final Raas client = AttachedRaas.attach(context.driverName(driver.name()));
        started.add(client);
        return client;
    }

    /**
     * Start a memory node: an embedded driver whose directory is the MetaServer, small pools (its
     * work is to be read), closed with the cluster unless closed before.
     *
     * @param nodeId its id.
     * @param agents whether it runs its Worker and Poller agents; without them it still serves
     *               one-sided requests (the device does) and its own calls poll for themselves.
     * @param tune   settings on top of those.
     */
    RaasDriver startMemoryNode(final long nodeId, final boolean agents, final UnaryOperator<RaasContext> tune)
    {
        final RaasContext context = new RaasContext()
            .verbs(verbs(provider))
            .nodeId(nodeId)
            .startAgents(agents)
            .dciCount(1)
            .requestSlots(256)
            .receiveBuffers(64)
            .advertisedBytes(64 * 1024);
        final RaasDriver node = RaasDriver.start(tune.apply(context), MetaDirectory.of(secretFile, meta.endpoint()));
        started.add(node);
        return node;
    }

    /** Stop a memory node (it deregisters) before the cluster closes. */
    void stop(final RaasDriver node)
    {
        started.remove(node);
        node.close();
    }

    /**
     * @return the error, with the end of each standalone driver's log added, so that a failure
     * through a driver shows what the driver said.
     */
    RuntimeException withDriverLogs(final RuntimeException error)
    {
        final StringBuilder logs = new StringBuilder();
        for (final AutoCloseable each : started)
        {
            if (each instanceof DriverProcess driver)
            {
                logs.append(System.lineSeparator()).append("standalone driver '").append(driver.name())
                    .append("' (pid ")
                    .append(driver.pid()).append(") said:").append(System.lineSeparator()).append(driver.logTail());
            }
        }
        if (logs.isEmpty())
        {
            return error;
        }
        return new IllegalStateException(error.getMessage() + logs, error);
    }

    /** Close, newest first, everything started, then the MetaServer, and delete the cluster's files. */
    public void close()
    {
        try
        {
            for (int i = started.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(started.get(i));
            }
            started.clear();
            meta.close();
        }
        finally
        {
            delete(workDir);
        }
    }

    private static void delete(final Path directory)
    {
        try (Stream<Path> paths = Files.walk(directory))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ignore)
        {
            // a temporary directory; what is left goes with the others
        }
    }
}

package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.QueuePair;
import org.agrona.CloseHelper;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Overhead of the driver: a synchronous READ through a logical connection, of an embedded driver
 * and of a standalone one ({@code dkv driver} in a process of its own, which this process attaches
 * to), against the same READ posted on a raw RC queue pair of the same provider and polled to
 * completion. Every driver per path and the raw pair are set up side by side and timed in
 * alternating blocks; those not being timed sit idle, their agents backed off.
 */
final class OverheadBenchmark
{
    static final String REGION_NAME = "dkv-bench-overhead";
    static final long MEMORY_NODE_ID = 2;
    static final long PATH_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final PartSettings settings;
    private final Map<String, String> driverProperties;
    private final int size;
    private final InterleavedLatency runner;
    private final PrintWriter progress;

    /**
     * @param settings         the embedded drivers' settings among them (the path's come on top).
     * @param driverProperties the same settings for the standalone drivers' processes.
     */
    OverheadBenchmark(
        final PartSettings settings,
        final Map<String, String> driverProperties,
        final int size,
        final InterleavedLatency runner)
    {
        this.settings = settings;
        this.driverProperties = driverProperties;
        this.size = size;
        this.runner = runner;
        this.progress = settings.progress();
    }

    /**
     * @return a row per path and driver mode; the raw READs are timed in the same alternating blocks
     * as every other subject's.
     */
    List<OverheadRow> run(final Provider provider, final List<RaasPath> paths)
    {
        progress.printf("[overhead] %s RaaS sync READ (embedded and standalone driver) over %s and raw READ of %d B%n",
            provider, paths, size);
        progress.flush();
        final long[] offsets = settings.offsets(size);
        final int slot = RaasReadWindow.slotStride(size);
        final List<RaasNodes> nodesByPath = new ArrayList<>();
        try (RawVerbsPair pair = new RawVerbsPair(provider, 1, settings.regionLength(), slot, 2);
            StandaloneCluster cluster = new StandaloneCluster(provider);
            Arena arena = Arena.ofShared())
        {
            final List<TimedLoop> subjects = new ArrayList<>();
            for (final RaasPath path : paths)
            {
                final RaasNodes nodes =
                    new RaasNodes(provider, settings.on(path));
                nodesByPath.add(nodes);
                final RemoteRegion owned =
                    nodes.server().malloc(nodes.serverId(), settings.regionLength(), REGION_NAME);
                nodes.server().localMemory(owned).fill((byte)0);
                final RemoteRegion region = nodes.client().lookup(REGION_NAME);
                nodes.settlePath(path, region);
                final Connection connection = nodes.client().open(nodes.serverId(), null);
                subjects.add(new RaasSyncReads(connection, region, arena.allocate(slot, 64), size, offsets));
            }

            final RaasDriver memoryNode = cluster.startMemoryNode(MEMORY_NODE_ID, true, settings.driverSettings());
            final RemoteRegion owned = memoryNode.malloc(MEMORY_NODE_ID, settings.regionLength(), REGION_NAME);
            memoryNode.localMemory(owned).fill((byte)0);
            final List<DriverProcess> drivers = new ArrayList<>();
            for (final RaasPath path : paths)
            {
                final Map<String, String> properties = new HashMap<>(driverProperties);
                properties.putAll(path.properties());
                final DriverProcess driver = cluster.startDriver("overhead-" + path, properties);
                drivers.add(driver);
                final Raas client = cluster.attach(driver);
                final RemoteRegion region = client.lookup(REGION_NAME);
                final Connection connection = client.open(MEMORY_NODE_ID, null);
                final MemorySegment buffer = client.allocateBuffer(slot);
                connection.read(region, 0, buffer, 0, size);
                awaitPath(memoryNode, driver, path);
                subjects.add(new RaasSyncReads(connection, region, buffer, size, offsets));
            }

            final QueuePair[] qps = new QueuePair[1];
            pair.connect(qps, new QueuePair[1], 1);
            subjects.add(new RawSyncReads(qps[0], pair.cq(), pair.local(), pair.remote(), size, offsets));

            final List<Latency> latencies;
            try
            {
                latencies = runner.measure(subjects);
            }
            catch (final RuntimeException ex)
            {
                throw cluster.withDriverLogs(ex);
            }
            final Latency raw = latencies.get(latencies.size() - 1);
            final List<OverheadRow> rows = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++)
            {
                nodesByPath.get(i).requirePath(paths.get(i), provider + " RaaS overhead run");
                rows.add(new OverheadRow(provider, paths.get(i), DriverMode.EMBEDDED, size, latencies.get(i), raw));
            }
            for (int i = 0; i < paths.size(); i++)
            {
                requirePath(memoryNode, drivers.get(i), paths.get(i));
                rows.add(new OverheadRow(provider, paths.get(i), DriverMode.STANDALONE, size,
                    latencies.get(paths.size() + i), raw));
            }
            return rows;
        }
        finally
        {
            CloseHelper.closeAll(nodesByPath);
        }
    }

    /**
     * Wait until the standalone driver's requests travel on the path: seen from the memory node,
     * which holds an RC queue pair to the driver's node once promoted.
     */
    private static void awaitPath(final RaasDriver memoryNode, final DriverProcess driver, final RaasPath path)
    {
        final long deadline = System.nanoTime() + PATH_TIMEOUT_NANOS;
        while (memoryNode.usesRc(driver.nodeId()) != (path == RaasPath.RC))
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("standalone driver '" + driver.name() + "' was meant to reach node " +
                    MEMORY_NODE_ID + " over " + path + " but does not " +
                    TimeUnit.NANOSECONDS.toMillis(PATH_TIMEOUT_NANOS) +
                    " ms after its first READ");
            }
            Thread.yield();
        }
    }

    private static void requirePath(final RaasDriver memoryNode, final DriverProcess driver, final RaasPath path)
    {
        if (memoryNode.usesRc(driver.nodeId()) != (path == RaasPath.RC))
        {
            throw new IllegalStateException("standalone driver '" + driver.name() + "' was meant to run over " + path +
                " but node " + MEMORY_NODE_ID + " now serves it over " +
                (path == RaasPath.RC ? RaasPath.DC : RaasPath.RC));
        }
    }
}

package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.load.bench.RandomOffsets;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.QueuePair;
import org.agrona.CloseHelper;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Overhead of the embedded driver: a synchronous READ through a logical connection against the
 * same READ posted on a raw RC queue pair of the same provider and polled to completion. A driver
 * pair per path and the raw pair are set up side by side and timed in alternating blocks; the pairs
 * not being timed sit idle, their agents backed off.
 */
final class OverheadBenchmark
{
    static final String REGION_NAME = "dkv-bench-overhead";

    private final UnaryOperator<RaasContext> driverSettings;
    private final int size;
    private final InterleavedLatency runner;
    private final long regionLength;
    private final long seed;
    private final PrintWriter progress;

    OverheadBenchmark(
        final UnaryOperator<RaasContext> driverSettings,
        final int size,
        final InterleavedLatency runner,
        final long regionLength,
        final long seed,
        final PrintWriter progress)
    {
        this.driverSettings = driverSettings;
        this.size = size;
        this.runner = runner;
        this.regionLength = regionLength;
        this.seed = seed;
        this.progress = progress;
    }

    /**
     * @return a row per path; the raw READs are timed in the same alternating blocks as every path's.
     */
    List<OverheadRow> run(final Provider provider, final List<RaasPath> paths)
    {
        progress.printf("[overhead] %s RaaS sync READ over %s and raw READ of %d B%n", provider, paths, size);
        progress.flush();
        final long[] offsets = RandomOffsets.generate(seed, regionLength, size);
        final int slot = RaasReadWindow.slotStride(size);
        final List<RaasNodes> nodesByPath = new ArrayList<>();
        try (RawVerbsPair pair = new RawVerbsPair(provider, 1, regionLength, slot, 2);
            Arena arena = Arena.ofShared())
        {
            final List<TimedLoop> subjects = new ArrayList<>();
            for (final RaasPath path : paths)
            {
                final RaasNodes nodes = new RaasNodes(provider, context -> path.configure(driverSettings.apply(context)));
                nodesByPath.add(nodes);
                final RemoteRegion owned = nodes.server().malloc(nodes.serverId(), regionLength, REGION_NAME);
                nodes.server().localMemory(owned).fill((byte)0);
                final RemoteRegion region = nodes.client().lookup(REGION_NAME);
                nodes.settlePath(path, region);
                final Connection connection = nodes.client().open(nodes.serverId(), null);
                subjects.add(new RaasSyncReads(connection, region, arena.allocate(slot, 64), size, offsets));
            }
            final QueuePair[] qps = new QueuePair[1];
            pair.connect(qps, new QueuePair[1], 1);
            subjects.add(new RawSyncReads(qps[0], pair.cq(), pair.local(), pair.remote(), size, offsets));

            final List<Latency> latencies = runner.measure(subjects);
            final Latency raw = latencies.get(latencies.size() - 1);
            final List<OverheadRow> rows = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++)
            {
                nodesByPath.get(i).requirePath(paths.get(i), provider + " RaaS overhead run");
                rows.add(new OverheadRow(provider, paths.get(i), size, latencies.get(i), raw));
            }
            return rows;
        }
        finally
        {
            CloseHelper.closeAll(nodesByPath);
        }
    }
}

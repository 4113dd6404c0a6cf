package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.CompletionQueue;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * Join: this process, attached to a running standalone driver, reaches a memory node neither has
 * talked to (the region's descriptor and the node's record read from the MetaServer, a logical
 * connection opened, the first 8 B READ), against creating and connecting a fresh RC queue pair
 * pair to the same node and its first READ, and beside the floor under both: the provider's first
 * READ from a ready DC initiator to the node, handed its DC target. Memory nodes start in batches
 * with ids never used before, each reached once each way (which way first rotates), and stop
 * before the next batch.
 */
final class JoinBenchmark
{
    static final long FIRST_NODE_ID = 1_000_000;
    static final int REGION_BYTES = 4096;
    static final String REGION_PREFIX = "dkv-bench-join-";
    static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(10);
    /**
     * Before any join, the paths a running driver and application use all the time are run on one
     * node until compiled, as they are in a process that has been up for a while: READs, lookups and
     * opens answered from the driver's cache, and (for the raw side) queue pairs made and connected.
     * The join path itself (a node met for the first time) is warmed by the warm-up nodes, as many
     * by default as raw queue pairs made here, so that neither side is timed while interpreted.
     */
    static final int WARMUP_READS = 20_000;
    static final int WARMUP_LOOKUPS = 2_000;
    static final int WARMUP_RAW_JOINS = 500;

    private final int nodes;
    private final int batch;
    private final int warmupNodes;
    private final PrintWriter progress;
    private long nextNodeId = FIRST_NODE_ID;

    /**
     * @param nodes       joins timed each way.
     * @param batch       memory nodes running at once.
     * @param warmupNodes joins each way before, not timed.
     * @param progress    where to say what runs.
     */
    JoinBenchmark(final int nodes, final int batch, final int warmupNodes, final PrintWriter progress)
    {
        this.nodes = nodes;
        this.batch = batch;
        this.warmupNodes = warmupNodes;
        this.progress = progress;
    }

    JoinRow run(final Provider provider)
    {
        progress.printf("[join] %s: %d memory nodes in batches of %d (after %d not timed), each reached once through " +
            "the standalone driver and once by a fresh RC queue pair%n", provider, nodes, batch, warmupNodes);
        progress.flush();
        try (StandaloneCluster cluster = new StandaloneCluster(provider);
            RawJoin raw = new RawJoin(provider);
            RawJoin floor = new RawJoin(provider))
        {
            final DriverProcess driver = cluster.startDriver("join", Map.of());
            final Raas client = cluster.attach(driver);
            final MemorySegment buffer = client.allocateBuffer(Long.BYTES);
            final Samples samples = new Samples();
            // the driver's first new nodes, before its join path is compiled: what a freshly started driver pays
            final Samples freshDriver = new Samples();
            try
            {
                warmUp(cluster, client, buffer, raw, floor);
                for (int done = 0; done < warmupNodes; done += batch)
                {
                    round(cluster, client, buffer, raw, floor, Math.min(batch, warmupNodes - done),
                        done == 0 ? freshDriver : null);
                }
                for (int done = 0; done < nodes; done += batch)
                {
                    round(cluster, client, buffer, raw, floor, Math.min(batch, nodes - done), samples);
                }
            }
            catch (final RuntimeException ex)
            {
                throw cluster.withDriverLogs(ex);
            }
            return samples.row(provider, warmupNodes > 0 ? freshDriver.raasP50Nanos() : -1);
        }
    }

    private void warmUp(
        final StandaloneCluster cluster, final Raas client, final MemorySegment buffer, final RawJoin raw,
        final RawJoin floor)
    {
        final long nodeId = nextNodeId++;
        // with agents: the READs make it hot, and it answers the driver's promotion as a running node does
        final RaasDriver node = cluster.startMemoryNode(nodeId, true, UnaryOperator.identity());
        CompletionQueue targetCq = null;
        try
        {
            final RemoteRegion region = node.malloc(nodeId, REGION_BYTES, REGION_PREFIX + nodeId);
            node.localMemory(region).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, nodeId);
            targetCq = node.protectionDomain().device().createCq(4);
            for (int i = 0; i < WARMUP_LOOKUPS; i++)
            {
                raasJoin(client, buffer, nodeId);
            }
            try (Connection connection = client.open(nodeId, null))
            {
                for (int i = 0; i < WARMUP_READS; i++)
                {
                    connection.read(region, 0, buffer, 0, Long.BYTES);
                }
            }
            for (int i = 0; i < WARMUP_RAW_JOINS; i++)
            {
                rawJoin(raw, node, region, targetCq);
                floorJoin(floor, node, region);
            }
        }
        finally
        {
            CloseHelper.close(targetCq);
            cluster.stop(node);
        }
    }

    /**
     * Start {@code count} memory nodes, reach each both ways, stop them.
     */
    private void round(
        final StandaloneCluster cluster,
        final Raas client,
        final MemorySegment buffer,
        final RawJoin raw,
        final RawJoin floor,
        final int count,
        final Samples samples)
    {
        final List<RaasDriver> memoryNodes = new ArrayList<>(count);
        final List<RemoteRegion> regions = new ArrayList<>(count);
        final List<CompletionQueue> targetCqs = new ArrayList<>(count);
        try
        {
            for (int i = 0; i < count; i++)
            {
                final long nodeId = nextNodeId++;
                final RaasDriver node = cluster.startMemoryNode(nodeId, false, UnaryOperator.identity());
                memoryNodes.add(node);
                final RemoteRegion region = node.malloc(nodeId, REGION_BYTES, REGION_PREFIX + nodeId);
                node.localMemory(region).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, nodeId);
                regions.add(region);
                targetCqs.add(node.protectionDomain().device().createCq(4));
            }
            final long[][] raasNanos = new long[count][];
            final long[] rawNanos = new long[count];
            final long[] floorNanos = new long[count];
            for (int i = 0; i < count; i++)
            {
                final RaasDriver node = memoryNodes.get(i);
                final long nodeId = node.self().id();
                // each way goes first, second and third in turn
                for (int turn = 0; turn < 3; turn++)
                {
                    switch ((i + turn) % 3)
                    {
                        case 0 -> raasNanos[i] = raasJoin(client, buffer, nodeId);
                        case 1 -> rawNanos[i] = rawJoin(raw, node, regions.get(i), targetCqs.get(i));
                        default -> floorNanos[i] = floorJoin(floor, node, regions.get(i));
                    }
                }
            }
            if (samples != null)
            {
                samples.record(raasNanos, rawNanos, floorNanos);
            }
        }
        finally
        {
            CloseHelper.closeAll(targetCqs);
            for (final RaasDriver node : memoryNodes)
            {
                cluster.stop(node);
            }
        }
    }

    /**
     * @return nanoseconds of the whole join, then of its steps: lookup, open, READ.
     */
    private static long[] raasJoin(final Raas client, final MemorySegment buffer, final long nodeId)
    {
        buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0);
        final long start = System.nanoTime();
        final RemoteRegion region = client.lookup(REGION_PREFIX + nodeId);
        final long found = System.nanoTime();
        final Connection connection = client.open(region.nodeId(), null);
        final long opened = System.nanoTime();
        connection.read(region, 0, buffer, 0, Long.BYTES);
        final long read = System.nanoTime();
        connection.close();
        requireValue("the standalone driver", nodeId, buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        return new long[]{read - start, found - start, opened - found, read - opened};
    }

    private static long rawJoin(final RawJoin raw, final RaasDriver node, final RemoteRegion region,
        final CompletionQueue targetCq)
    {
        final long nanos = raw.joinRc(node, region, targetCq);
        requireValue("a fresh RC queue pair", node.self().id(), raw.lastValue());
        return nanos;
    }

    private static long floorJoin(final RawJoin floor, final RaasDriver node, final RemoteRegion region)
    {
        final long nanos = floor.joinDc(node, region);
        requireValue("a raw DC initiator", node.self().id(), floor.lastValue());
        return nanos;
    }

    /** A READ that brings another node's bytes went to the wrong node: no figure may come of it. */
    private static void requireValue(final String way, final long nodeId, final long value)
    {
        if (value != nodeId)
        {
            throw new IllegalStateException("the first READ of node " + nodeId + " through " + way + " brought " +
                value +
                ", not the node's id");
        }
    }

    /** The joins timed, whole and by step, with the median of each batch. */
    private static final class Samples
    {
        private static final int STEPS = 4;
        private final Histogram raw = new Histogram(HIGHEST_NANOS, 3);
        private final Histogram floor = new Histogram(HIGHEST_NANOS, 3);
        private final List<Long> floorBlocks = new ArrayList<>();
        private final Histogram[] raas = new Histogram[STEPS];
        private final List<Long> rawBlocks = new ArrayList<>();
        private final List<List<Long>> raasBlocks = new ArrayList<>();

        Samples()
        {
            for (int step = 0; step < STEPS; step++)
            {
                raas[step] = new Histogram(HIGHEST_NANOS, 3);
                raasBlocks.add(new ArrayList<>());
            }
        }

        void record(final long[][] raasNanos, final long[] rawNanos, final long[] floorNanos)
        {
            for (int step = 0; step < STEPS; step++)
            {
                final long[] values = new long[raasNanos.length];
                for (int i = 0; i < values.length; i++)
                {
                    values[i] = raasNanos[i][step];
                }
                record(values, raas[step], raasBlocks.get(step));
            }
            record(rawNanos, raw, rawBlocks);
            record(floorNanos, floor, floorBlocks);
        }

        private static void record(final long[] nanos, final Histogram histogram, final List<Long> blockMedians)
        {
            for (final long value : nanos)
            {
                histogram.recordValue(Math.min(value, HIGHEST_NANOS));
            }
            final long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            blockMedians.add(sorted[sorted.length / 2]);
        }

        long raasP50Nanos()
        {
            return raas[0].getValueAtPercentile(50);
        }

        JoinRow row(final Provider provider, final long freshDriverP50Nanos)
        {
            return new JoinRow(provider, latency(raas[0], raasBlocks.get(0)), latency(raw, rawBlocks),
                latency(floor, floorBlocks),
                latency(raas[1], raasBlocks.get(1)), latency(raas[2], raasBlocks.get(2)),
                latency(raas[3], raasBlocks.get(3)),
                freshDriverP50Nanos);
        }

        private static Latency latency(final Histogram histogram, final List<Long> blocks)
        {
            return Latency.of(histogram, blocks.stream().mapToLong(Long::longValue).toArray());
        }
    }
}

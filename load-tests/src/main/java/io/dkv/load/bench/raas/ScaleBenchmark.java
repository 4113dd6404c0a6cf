package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.load.bench.RandomOffsets;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.VerbsException;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.UnaryOperator;

/**
 * Scale: READs from one thread spread over 1 to thousands of logical connections sharing the
 * driver's queue pairs, against as many raw RC queue pairs, each connected to its own on the target.
 * Memory per connection is the heap growth from opening them, per raw queue pair the growth from
 * creating and connecting both ends.
 */
final class ScaleBenchmark
{
    static final String REGION_NAME = "dkv-bench-scale";
    /** Warm-ups run in calls of this many READs, so that the loops are compiled whole. */
    static final int WARMUP_CHUNK = 1000;
    /**
     * Each count's READs are timed in this many runs and the median throughput kept: a burst of
     * other work on a shared machine then spoils one run, not the figure.
     */
    static final int REPEATS = 5;
    /** The unmeasured run before the first count lasts this many warm-ups: it compiles the code. */
    static final int CODE_WARMUPS = 3;

    private final UnaryOperator<RaasContext> driverSettings;
    private final List<Integer> connectionCounts;
    private final IntUnaryOperator operations;
    private final int size;
    private final int window;
    private final long warmupMillis;
    private final long regionLength;
    private final long seed;
    private final PrintWriter progress;
    private long driverHeapBytes = -1;

    /**
     * @param driverSettings   what the drivers are started with, on top of the defaults.
     * @param connectionCounts how many connections each run uses.
     * @param operations       READs timed per count and side, by connection count.
     */
    ScaleBenchmark(
        final UnaryOperator<RaasContext> driverSettings,
        final List<Integer> connectionCounts,
        final IntUnaryOperator operations,
        final int size,
        final int window,
        final long warmupMillis,
        final long regionLength,
        final long seed,
        final PrintWriter progress)
    {
        this.driverSettings = driverSettings;
        this.connectionCounts = List.copyOf(connectionCounts);
        this.operations = operations;
        this.size = size;
        this.window = window;
        this.warmupMillis = warmupMillis;
        this.regionLength = regionLength;
        this.seed = seed;
        this.progress = progress;
    }

    /**
     * @return heap a started driver holds before any connection (half of what starting two took),
     * or -1 before {@link #run}.
     */
    long driverHeapBytes()
    {
        return driverHeapBytes;
    }

    /**
     * @return a row per path and count, in that order.
     */
    List<ScaleRow> run(final Provider provider, final List<RaasPath> paths)
    {
        final long[] offsets = RandomOffsets.generate(seed, regionLength, size);
        final List<List<RaasRun>> raasRuns = new ArrayList<>();
        for (final RaasPath path : paths)
        {
            raasRuns.add(runRaas(provider, path, offsets));
        }
        final List<RawRun> rawRuns = new ArrayList<>();
        warmUpRawCode(provider, offsets);
        for (final int count : connectionCounts)
        {
            progress.printf("[scale] %s raw verbs, %,d RC queue pairs%n", provider, count);
            progress.flush();
            try
            {
                rawRuns.add(runRaw(provider, count, offsets));
            }
            catch (final VerbsException ex)
            {
                rawRuns.add(new RawRun(Double.NaN, null, ex.getMessage()));
            }
        }
        final List<ScaleRow> rows = new ArrayList<>();
        for (int p = 0; p < paths.size(); p++)
        {
            for (int c = 0; c < connectionCounts.size(); c++)
            {
                final RaasRun raas = raasRuns.get(p).get(c);
                final RawRun raw = rawRuns.get(c);
                rows.add(new ScaleRow(provider, paths.get(p), connectionCounts.get(c), operations.applyAsInt(connectionCounts.get(c)),
                    raas.opsPerSecond, raas.memory, raw.opsPerSecond, raw.memory, raw.failure));
            }
        }
        return rows;
    }

    private record RaasRun(double opsPerSecond, MemoryFootprint memory)
    {
    }

    private record RawRun(double opsPerSecond, MemoryFootprint memory, String failure)
    {
    }

    private List<RaasRun> runRaas(final Provider provider, final RaasPath path, final long[] offsets)
    {
        final List<RaasRun> runs = new ArrayList<>();
        final MemorySample beforeDrivers = MemorySample.take();
        try (RaasNodes nodes = new RaasNodes(provider, context -> path.configure(driverSettings.apply(context)));
            Arena arena = Arena.ofShared())
        {
            driverHeapBytes = (MemorySample.take().heapBytes() - beforeDrivers.heapBytes()) / 2;
            final Raas client = nodes.client();
            final RemoteRegion owned = nodes.server().malloc(nodes.serverId(), regionLength, REGION_NAME);
            nodes.server().localMemory(owned).fill((byte)0);
            final RemoteRegion region = client.lookup(REGION_NAME);
            final MemorySegment buffers = arena.allocate((long)RaasReadWindow.slotStride(size) * window, 64);
            final RaasReadWindow reads = new RaasReadWindow(client, region, buffers, size, window, offsets);
            warmUpCode(reads, client.open(nodes.serverId(), reads));
            for (final int count : connectionCounts)
            {
                progress.printf("[scale] %s RaaS over %s, %,d logical connections%n", provider, path, count);
                progress.flush();
                final Connection[] connections = new Connection[count];
                final MemorySample before = MemorySample.take();
                for (int i = 0; i < count; i++)
                {
                    connections[i] = client.open(nodes.serverId(), reads);
                }
                final MemoryFootprint memory = MemorySample.take().perUnitSince(before, count);
                try
                {
                    reads.use(connections);
                    final double opsPerSecond = measure(reads::run, operations.applyAsInt(count));
                    nodes.requirePath(path, String.format("%s RaaS scale run over %,d connections", provider, count));
                    runs.add(new RaasRun(opsPerSecond, memory));
                }
                finally
                {
                    for (final Connection connection : connections)
                    {
                        connection.close();
                    }
                }
            }
        }
        return runs;
    }

    /**
     * Run the code once before the first count is measured, so that the first count's warm-up is no
     * shorter than the others' in effect: it would otherwise also pay for compiling the driver.
     */
    private void warmUpCode(final RaasReadWindow reads, final Connection connection)
    {
        try
        {
            reads.use(new Connection[]{connection});
            warmUp(reads::run, CODE_WARMUPS * warmupMillis);
        }
        finally
        {
            connection.close();
        }
    }

    private RawRun runRaw(final Provider provider, final int count, final long[] offsets)
    {
        try (RawVerbsPair pair = openRawPair(provider, count))
        {
            final QueuePair[] qps = new QueuePair[count];
            final QueuePair[] peers = new QueuePair[count];
            final MemorySample before = MemorySample.take();
            pair.connect(qps, peers, window);
            final MemoryFootprint memory = MemorySample.take().perUnitSince(before, 2 * count);
            final RawReadWindow reads = new RawReadWindow(pair.cq(), pair.local(), pair.remote(), size, window, offsets);
            reads.use(qps);
            return new RawRun(measure(reads::run, operations.applyAsInt(count)), memory, null);
        }
    }

    /**
     * Run the raw baseline once, unmeasured, as for RaaS: the first raw count would otherwise also
     * pay for compiling the provider's paths.
     */
    private void warmUpRawCode(final Provider provider, final long[] offsets)
    {
        try (RawVerbsPair pair = openRawPair(provider, 1))
        {
            final QueuePair[] qps = new QueuePair[1];
            pair.connect(qps, new QueuePair[1], window);
            final RawReadWindow reads = new RawReadWindow(pair.cq(), pair.local(), pair.remote(), size, window, offsets);
            reads.use(qps);
            warmUp(reads::run, CODE_WARMUPS * warmupMillis);
        }
    }

    private RawVerbsPair openRawPair(final Provider provider, final int count)
    {
        return new RawVerbsPair(provider, count, regionLength, (long)RaasReadWindow.slotStride(size) * window, 2 * window);
    }

    /**
     * @return the median throughput of {@link #REPEATS} timed runs, each of a share of {@code ops},
     * after a warm-up.
     */
    private double measure(final IntToLongFunction run, final int ops)
    {
        warmUp(run, warmupMillis);
        final int share = Math.max(1, ops / REPEATS);
        final double[] opsPerSecond = new double[REPEATS];
        for (int i = 0; i < REPEATS; i++)
        {
            opsPerSecond[i] = share * 1e9 / run.applyAsLong(share);
        }
        Arrays.sort(opsPerSecond);
        return opsPerSecond[REPEATS / 2];
    }

    private static void warmUp(final IntToLongFunction run, final long millis)
    {
        final long warmupEnd = System.nanoTime() + millis * 1_000_000L;
        do
        {
            run.applyAsLong(WARMUP_CHUNK);
        }
        while (System.nanoTime() < warmupEnd);
    }
}

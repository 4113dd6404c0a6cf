package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.VerbsException;
import org.agrona.CloseHelper;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;

/**
 * Scale: READs from one thread spread over 1 to thousands of logical connections sharing the
 * driver's queue pairs, against as many raw RC queue pairs, each connected to its own on the target.
 * Memory per connection is the heap growth from opening them, per raw queue pair the growth from
 * creating and connecting both ends.
 *
 * <p>Every count of every side is set up first and then timed in rounds, a run of each in turn per
 * round, the median of the rounds kept: the ratios between counts and sides then compare runs made
 * moments apart rather than a minute apart on a machine whose load changes.
 */
final class ScaleBenchmark
{
    static final String REGION_NAME = "dkv-bench-scale";
    /** Warm-ups run in calls of this many READs, so that the loops are compiled whole. */
    static final int WARMUP_CHUNK = 1000;
    /** Rounds each subject is timed in; the median throughput is kept. */
    static final int REPEATS = 5;

    private final PartSettings settings;
    private final List<Integer> connectionCounts;
    private final IntUnaryOperator operations;
    private final int size;
    private final int window;
    private final PrintWriter progress;
    private long driverHeapBytes = -1;

    /**
     * @param connectionCounts how many connections each run uses.
     * @param operations       READs timed per count and side, by connection count.
     */
    ScaleBenchmark(
        final PartSettings settings,
        final List<Integer> connectionCounts,
        final IntUnaryOperator operations,
        final int size,
        final int window)
    {
        this.settings = settings;
        this.connectionCounts = List.copyOf(connectionCounts);
        this.operations = operations;
        this.size = size;
        this.window = window;
        this.progress = settings.progress();
    }

    /**
     * @return heap a started driver holds before any connection (half of what starting two took),
     * or -1 before {@link #run}.
     */
    long driverHeapBytes()
    {
        return driverHeapBytes;
    }

    /** Something timed: a window of READs over a set of {@code count} connections or queue pairs. */
    private record Subject(String name, int count, IntToLongFunction run)
    {
    }

    /**
     * @return a row per path and count, in that order.
     */
    List<ScaleRow> run(final Provider provider, final List<RaasPath> paths)
    {
        final long[] offsets = settings.offsets(size);
        final List<AutoCloseable> resources = new ArrayList<>();
        try
        {
            final List<List<Subject>> raasSubjects = new ArrayList<>();
            final List<List<MemoryFootprint>> raasMemory = new ArrayList<>();
            for (final RaasPath path : paths)
            {
                final List<Subject> subjects = new ArrayList<>();
                final List<MemoryFootprint> memory = new ArrayList<>();
                openRaas(provider, path, offsets, resources, subjects, memory);
                raasSubjects.add(subjects);
                raasMemory.add(memory);
            }
            final List<Subject> rawSubjects = new ArrayList<>();
            final List<MemoryFootprint> rawMemory = new ArrayList<>();
            final List<String> rawFailures = new ArrayList<>();
            for (final int count : connectionCounts)
            {
                openRaw(provider, count, offsets, resources, rawSubjects, rawMemory, rawFailures);
            }

            final List<Subject> all = new ArrayList<>();
            for (int c = 0; c < connectionCounts.size(); c++)
            {
                for (final List<Subject> subjects : raasSubjects)
                {
                    all.add(subjects.get(c));
                }
                if (rawSubjects.get(c) != null)
                {
                    all.add(rawSubjects.get(c));
                }
            }
            final double[] opsPerSecond = measure(provider, all);

            final List<ScaleRow> rows = new ArrayList<>();
            for (int p = 0; p < paths.size(); p++)
            {
                for (int c = 0; c < connectionCounts.size(); c++)
                {
                    final int count = connectionCounts.get(c);
                    final Subject raw = rawSubjects.get(c);
                    rows.add(new ScaleRow(provider, paths.get(p), count, operations.applyAsInt(count),
                        opsPerSecond[all.indexOf(raasSubjects.get(p).get(c))], raasMemory.get(p).get(c),
                        raw == null ? Double.NaN : opsPerSecond[all.indexOf(raw)], rawMemory.get(c),
                        rawFailures.get(c)));
                }
            }
            return rows;
        }
        finally
        {
            CloseHelper.closeAll(resources.reversed());
        }
    }

    /**
     * Start a driver pair on the path and open each count's connections, measuring the heap they
     * take, with a window of READs over each set.
     */
    private void openRaas(
        final Provider provider,
        final RaasPath path,
        final long[] offsets,
        final List<AutoCloseable> resources,
        final List<Subject> subjects,
        final List<MemoryFootprint> memory)
    {
        progress.printf("[scale] %s RaaS over %s: opening %s logical connections%n", provider, path, connectionCounts);
        progress.flush();
        final MemorySample beforeDrivers = MemorySample.take();
        final RaasNodes nodes = new RaasNodes(provider, settings.on(path));
        resources.add(nodes);
        driverHeapBytes = (MemorySample.take().heapBytes() - beforeDrivers.heapBytes()) / 2;
        final Arena arena = Arena.ofShared();
        resources.add(arena);
        final Raas client = nodes.client();
        final RemoteRegion owned = nodes.server().malloc(nodes.serverId(), settings.regionLength(), REGION_NAME);
        nodes.server().localMemory(owned).fill((byte)0);
        final RemoteRegion region = client.lookup(REGION_NAME);
        nodes.settlePath(path, region);
        for (final int count : connectionCounts)
        {
            final RaasReadWindow reads = new RaasReadWindow(
                client, region, arena.allocate((long)RaasReadWindow.slotStride(size) * window, 64), size, window,
                offsets);
            final Connection[] connections = new Connection[count];
            final MemorySample before = MemorySample.take();
            for (int i = 0; i < count; i++)
            {
                connections[i] = client.open(nodes.serverId(), reads);
            }
            memory.add(MemorySample.take().perUnitSince(before, count));
            resources.add(() -> closeAll(connections));
            reads.use(connections);
            final String name = String.format("%s RaaS over %s, %,d connections", provider, path, count);
            subjects.add(new Subject(name, count, ops ->
            {
                final long elapsed = reads.run(ops);
                nodes.requirePath(path, name);
                return elapsed;
            }));
        }
    }

    private static void closeAll(final Connection[] connections)
    {
        for (final Connection connection : connections)
        {
            if (connection != null)
            {
                connection.close();
            }
        }
    }

    /**
     * Open a raw device pair with {@code count} connected queue pairs, measuring the memory they
     * take, with a window of READs over them; or record why the pair could not be set up.
     */
    private void openRaw(
        final Provider provider,
        final int count,
        final long[] offsets,
        final List<AutoCloseable> resources,
        final List<Subject> subjects,
        final List<MemoryFootprint> memory,
        final List<String> failures)
    {
        progress.printf("[scale] %s raw verbs: %,d RC queue pairs%n", provider, count);
        progress.flush();
        RawVerbsPair pair = null;
        try
        {
            pair = new RawVerbsPair(provider, count, settings.regionLength(),
                (long)RaasReadWindow.slotStride(size) * window, 2 * window);
            final QueuePair[] qps = new QueuePair[count];
            final QueuePair[] peers = new QueuePair[count];
            final MemorySample before = MemorySample.take();
            pair.connect(qps, peers, window);
            memory.add(MemorySample.take().perUnitSince(before, 2 * count));
            resources.add(pair);
            final RawReadWindow reads =
                new RawReadWindow(pair.cq(), pair.local(), pair.remote(), size, window, offsets);
            reads.use(qps);
            subjects.add(new Subject(String.format("%s raw verbs, %,d queue pairs", provider, count), count,
                reads::run));
            failures.add(null);
        }
        catch (final VerbsException ex)
        {
            CloseHelper.quietClose(pair);
            subjects.add(null);
            memory.add(null);
            failures.add(ex.getMessage());
        }
    }

    /**
     * Warm every subject up, then time them in {@link #REPEATS} rounds, a share of each subject's
     * READs per round. No subject is timed before all have warmed up, so none is timed while the
     * code is still being compiled.
     *
     * @return the median throughput of each subject, in the order given.
     */
    private double[] measure(final Provider provider, final List<Subject> subjects)
    {
        progress.printf("[scale] %s warming up %d subjects%n", provider, subjects.size());
        progress.flush();
        for (final Subject subject : subjects)
        {
            warmUp(subject.run, settings.warmupMillis());
        }
        final double[][] rounds = new double[subjects.size()][REPEATS];
        for (int round = 0; round < REPEATS; round++)
        {
            progress.printf("[scale] %s round %d of %d%n", provider, round + 1, REPEATS);
            progress.flush();
            for (int i = 0; i < subjects.size(); i++)
            {
                final int share = Math.max(1, operations.applyAsInt(subjects.get(i).count) / REPEATS);
                rounds[i][round] = share * 1e9 / subjects.get(i).run.applyAsLong(share);
            }
        }
        final double[] medians = new double[subjects.size()];
        for (int i = 0; i < subjects.size(); i++)
        {
            Arrays.sort(rounds[i]);
            medians[i] = rounds[i][REPEATS / 2];
        }
        return medians;
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

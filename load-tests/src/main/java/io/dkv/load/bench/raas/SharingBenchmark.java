package io.dkv.load.bench.raas;

import io.dkv.load.bench.OffsetCursor;
import io.dkv.load.bench.Provider;
import io.dkv.load.bench.RemoteTargets;
import io.dkv.raas.Connection;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.agrona.CloseHelper;
import org.agrona.concurrent.IdleStrategy;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sharing: several threads issuing synchronous READs at once. With RaaS each thread has its own
 * logical connection and the driver multiplexes them on its queue pairs without a lock; without
 * RaaS the threads share one RC queue pair and take turns under a lock, each holding it from post to
 * completion, as the queue pair and its CQ cannot be used by two threads at once.
 */
final class SharingBenchmark
{
    static final String REGION_NAME = "dkv-bench-sharing";
    /** Runs each subject is timed in, taken in turn with the other subjects'. */
    static final int ROUNDS = 3;

    private final PartSettings settings;
    private final List<Integer> threadCounts;
    private final int size;
    private final long measureMillis;
    private final PrintWriter progress;

    /**
     * @param threadCounts  reading threads of each run.
     * @param measureMillis how long reads are counted per thread count and side, over all rounds.
     */
    SharingBenchmark(
        final PartSettings settings,
        final List<Integer> threadCounts,
        final int size,
        final long measureMillis)
    {
        this.settings = settings;
        this.threadCounts = List.copyOf(threadCounts);
        this.size = size;
        this.measureMillis = measureMillis;
        this.progress = settings.progress();
    }

    /** Something timed: threads reading over their own connections, or taking turns on a locked queue pair. */
    private record Subject(String name, SharedReaders.ReaderFactory readers)
    {
    }

    /**
     * @return a row per path and thread count, in that order.
     */
    List<SharingRow> run(final Provider provider, final List<RaasPath> paths) throws InterruptedException
    {
        final long[] offsets = settings.offsets(size);
        final int maxThreads = threadCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        final int stride = RaasReadWindow.slotStride(size);
        final List<AutoCloseable> resources = new ArrayList<>();
        try
        {
            final List<RaasSide> raasSides = new ArrayList<>();
            for (final RaasPath path : paths)
            {
                raasSides.add(openRaas(provider, path, maxThreads, stride, resources));
            }
            final RawVerbsPair pair =
                new RawVerbsPair(provider, 1, settings.regionLength(), (long)stride * maxThreads, 2 * maxThreads);
            resources.add(pair);
            final QueuePair[] qps = new QueuePair[1];
            pair.connect(qps, new QueuePair[1], maxThreads);

            final List<SharingRow> rows = new ArrayList<>();
            final List<List<SharedReaders.Result>> raasResults = new ArrayList<>();
            final List<SharedReaders.Result> lockedResults = new ArrayList<>();
            for (final int threads : threadCounts)
            {
                final List<Subject> subjects = new ArrayList<>();
                for (final RaasSide side : raasSides)
                {
                    final Connection[] connections = side.open(threads);
                    subjects.add(new Subject(String.format("%s RaaS over %s, %d threads", provider, side.path, threads),
                        index -> raasReader(connections[index], side.region,
                            side.buffers.asSlice((long)index * stride, stride),
                            offsets, index * (offsets.length / threads))));
                }
                final ReentrantLock lock = new ReentrantLock();
                subjects.add(new Subject(String.format("%s raw verbs, %d threads on one locked queue pair", provider,
                    threads),
                    index -> lockedReader(lock, qps[0], pair.cq(), pair.local(), pair.remote(), index, stride, offsets,
                        index * (offsets.length / threads))));
                final List<SharedReaders.Result> results = measure(threads, subjects);
                for (int p = 0; p < raasSides.size(); p++)
                {
                    raasSides.get(p).nodes.requirePath(paths.get(p), subjects.get(p).name);
                    raasSides.get(p).closeConnections();
                }
                raasResults.add(results.subList(0, raasSides.size()));
                lockedResults.add(results.get(raasSides.size()));
            }
            for (int p = 0; p < paths.size(); p++)
            {
                for (int t = 0; t < threadCounts.size(); t++)
                {
                    rows.add(new SharingRow(provider, paths.get(p), threadCounts.get(t), raasResults.get(t).get(p),
                        lockedResults.get(t)));
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
     * Run every subject in turn, {@link #ROUNDS} times, each time for a share of the measured time:
     * the ratio between RaaS and the locked queue pair then compares runs made moments apart.
     *
     * @return each subject's runs added up, in the order given.
     */
    private List<SharedReaders.Result> measure(final int threads,
        final List<Subject> subjects) throws InterruptedException
    {
        final SharedReaders.Result[] totals = new SharedReaders.Result[subjects.size()];
        for (int round = 0; round < ROUNDS; round++)
        {
            for (int i = 0; i < subjects.size(); i++)
            {
                final Subject subject = subjects.get(i);
                progress.printf("[sharing] %s, round %d of %d%n", subject.name, round + 1, ROUNDS);
                progress.flush();
                final long warmupMillis = settings.warmupMillis();
                final SharedReaders.Result result = SharedReaders.run(threads, subject.readers,
                    round == 0 ? warmupMillis : warmupMillis / ROUNDS, Math.max(1, measureMillis / ROUNDS),
                    "dkv-bench-reader");
                totals[i] = totals[i] == null ? result : totals[i].plus(result);
            }
        }
        return List.of(totals);
    }

    /**
     * A driver pair on one path, with a region to read and a buffer per thread; the connections of
     * the threads are opened for each thread count and closed after it.
     */
    private final class RaasSide
    {
        final RaasPath path;
        final RaasNodes nodes;
        final RemoteRegion region;
        final MemorySegment buffers;
        private Connection[] connections = new Connection[0];

        RaasSide(final RaasPath path, final RaasNodes nodes, final RemoteRegion region, final MemorySegment buffers)
        {
            this.path = path;
            this.nodes = nodes;
            this.region = region;
            this.buffers = buffers;
        }

        Connection[] open(final int threads)
        {
            connections = new Connection[threads];
            for (int i = 0; i < threads; i++)
            {
                connections[i] = nodes.client().open(nodes.serverId(), null);
            }
            return connections;
        }

        void closeConnections()
        {
            for (final Connection connection : connections)
            {
                if (connection != null)
                {
                    connection.close();
                }
            }
            connections = new Connection[0];
        }
    }

    private RaasSide openRaas(
        final Provider provider, final RaasPath path, final int maxThreads, final int stride,
        final List<AutoCloseable> resources)
    {
        final RaasNodes nodes = new RaasNodes(provider, settings.on(path));
        resources.add(nodes);
        final Arena arena = Arena.ofShared();
        resources.add(arena);
        final RemoteRegion owned = nodes.server().malloc(nodes.serverId(), settings.regionLength(), REGION_NAME);
        nodes.server().localMemory(owned).fill((byte)0);
        final RemoteRegion region = nodes.client().lookup(REGION_NAME);
        nodes.settlePath(path, region);
        final RaasSide side = new RaasSide(path, nodes, region, arena.allocate((long)stride * maxThreads, 64));
        resources.add(side::closeConnections);
        return side;
    }

    private SharedReaders.Reader raasReader(
        final Connection connection, final RemoteRegion region, final MemorySegment buffer, final long[] offsets,
        final int first)
    {
        final OffsetCursor cursor = new OffsetCursor(offsets, first);
        return () -> connection.read(region, cursor.next(), buffer, 0, size);
    }

    private SharedReaders.Reader lockedReader(
        final ReentrantLock lock,
        final QueuePair qp,
        final CompletionQueue cq,
        final MemoryRegion local,
        final MemoryRegion remote,
        final int index,
        final int stride,
        final long[] offsets,
        final int first)
    {
        final SendWorkRequest request = new SendWorkRequest(1)
            .wrId(index)
            .opcode(Opcode.RDMA_READ)
            .sendFlags(SendFlags.SIGNALED)
            .local(local, (long)index * stride, size);
        final WorkCompletion[] completion = {new WorkCompletion()};
        final IdleStrategy idleStrategy = Waiting.newIdleStrategy();
        final RemoteTargets targets = new RemoteTargets(remote, offsets, first);
        final String description = "thread " + index + ": READ on the shared queue pair";
        return () ->
        {
            lock.lock();
            try
            {
                targets.aim(request);
                qp.postSend(request);
                awaitCompletion(cq, completion, idleStrategy, index, description);
            }
            finally
            {
                lock.unlock();
            }
        };
    }

    /**
     * Poll until the one request in flight completes: whoever holds the lock has the only one.
     */
    private static void awaitCompletion(
        final CompletionQueue cq,
        final WorkCompletion[] completion,
        final IdleStrategy idleStrategy,
        final int index,
        final String description)
    {
        Waiting.awaitOne(cq, completion, idleStrategy, System.nanoTime(), description);
        if (!completion[0].isSuccess() || completion[0].wrId() != index)
        {
            throw new IllegalStateException("thread " + index + ": expected a successful completion of its READ, got " +
                completion[0]);
        }
    }
}

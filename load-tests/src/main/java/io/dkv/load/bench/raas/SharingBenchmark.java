package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.load.bench.RandomOffsets;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.WorkCompletion;
import org.agrona.concurrent.IdleStrategy;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.concurrent.TimeUnit;
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

    private final UnaryOperator<RaasContext> driverSettings;
    private final List<Integer> threadCounts;
    private final int size;
    private final long warmupMillis;
    private final long measureMillis;
    private final long regionLength;
    private final long seed;
    private final PrintWriter progress;

    SharingBenchmark(
        final UnaryOperator<RaasContext> driverSettings,
        final List<Integer> threadCounts,
        final int size,
        final long warmupMillis,
        final long measureMillis,
        final long regionLength,
        final long seed,
        final PrintWriter progress)
    {
        this.driverSettings = driverSettings;
        this.threadCounts = List.copyOf(threadCounts);
        this.size = size;
        this.warmupMillis = warmupMillis;
        this.measureMillis = measureMillis;
        this.regionLength = regionLength;
        this.seed = seed;
        this.progress = progress;
    }

    /**
     * @return a row per path and thread count, in that order.
     */
    List<SharingRow> run(final Provider provider, final List<RaasPath> paths) throws InterruptedException
    {
        final long[] offsets = RandomOffsets.generate(seed, regionLength, size);
        final int maxThreads = threadCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        final int stride = RaasReadWindow.slotStride(size);
        final List<List<SharedReaders.Result>> raasResults = new ArrayList<>();
        for (final RaasPath path : paths)
        {
            raasResults.add(runRaas(provider, path, offsets, maxThreads, stride));
        }

        final List<SharedReaders.Result> lockedResults = new ArrayList<>();
        try (RawVerbsPair pair = new RawVerbsPair(provider, 1, regionLength, (long)stride * maxThreads, 2 * maxThreads))
        {
            final QueuePair[] qps = new QueuePair[1];
            pair.connect(qps, new QueuePair[1], maxThreads);
            for (final int threads : threadCounts)
            {
                progress.printf("[sharing] %s raw verbs, %d threads, one RC queue pair under a lock%n", provider, threads);
                progress.flush();
                final ReentrantLock lock = new ReentrantLock();
                lockedResults.add(SharedReaders.run(threads,
                    index -> lockedReader(lock, qps[0], pair.cq(), pair.local(), pair.remote(), index, stride, offsets,
                        index * (offsets.length / threads)),
                    warmupMillis, measureMillis, "dkv-bench-locked-reader"));
            }
        }

        final List<SharingRow> rows = new ArrayList<>();
        for (int p = 0; p < paths.size(); p++)
        {
            for (int t = 0; t < threadCounts.size(); t++)
            {
                rows.add(new SharingRow(provider, paths.get(p), threadCounts.get(t), raasResults.get(p).get(t), lockedResults.get(t)));
            }
        }
        return rows;
    }

    private List<SharedReaders.Result> runRaas(
        final Provider provider, final RaasPath path, final long[] offsets, final int maxThreads, final int stride)
        throws InterruptedException
    {
        final List<SharedReaders.Result> results = new ArrayList<>();
        try (RaasNodes nodes = new RaasNodes(provider, context -> path.configure(driverSettings.apply(context)));
            Arena arena = Arena.ofShared())
        {
            final RemoteRegion owned = nodes.server().malloc(nodes.serverId(), regionLength, REGION_NAME);
            nodes.server().localMemory(owned).fill((byte)0);
            final RemoteRegion region = nodes.client().lookup(REGION_NAME);
            nodes.settlePath(path, region);
            final MemorySegment buffers = arena.allocate((long)stride * maxThreads, 64);
            for (final int threads : threadCounts)
            {
                progress.printf("[sharing] %s RaaS over %s, %d threads, a logical connection each%n", provider, path, threads);
                progress.flush();
                final Connection[] connections = new Connection[threads];
                for (int i = 0; i < threads; i++)
                {
                    connections[i] = nodes.client().open(nodes.serverId(), null);
                }
                try
                {
                    results.add(SharedReaders.run(threads,
                        index -> raasReader(connections[index], region, buffers.asSlice((long)index * stride, stride), offsets,
                            index * (offsets.length / threads)),
                        warmupMillis, measureMillis, "dkv-bench-raas-reader"));
                    nodes.requirePath(path, provider + " RaaS sharing run with " + threads + " threads");
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
        return results;
    }

    private SharedReaders.Reader raasReader(
        final Connection connection, final RemoteRegion region, final MemorySegment buffer, final long[] offsets, final int first)
    {
        final int mask = offsets.length - 1;
        final int[] cursor = {first};
        return () -> connection.read(region, offsets[cursor[0]++ & mask], buffer, 0, size);
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
        final int mask = offsets.length - 1;
        final long remoteBase = remote.address();
        final int rkey = remote.rkey();
        final SendWorkRequest request = new SendWorkRequest(1)
            .wrId(index)
            .opcode(Opcode.RDMA_READ)
            .sendFlags(SendFlags.SIGNALED)
            .local(local, (long)index * stride, size);
        final WorkCompletion[] completion = {new WorkCompletion()};
        final IdleStrategy idleStrategy = Waiting.newIdleStrategy();
        final int[] cursor = {first};
        return () ->
        {
            lock.lock();
            try
            {
                request.remote(remoteBase + offsets[cursor[0]++ & mask], rkey);
                qp.postSend(request);
                awaitCompletion(cq, completion, idleStrategy, index);
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
        final CompletionQueue cq, final WorkCompletion[] completion, final IdleStrategy idleStrategy, final int index)
    {
        idleStrategy.reset();
        final long start = System.nanoTime();
        int emptyWaits = 0;
        while (cq.poll(completion, 1) == 0)
        {
            if (++emptyWaits == Waiting.WAITS_PER_CLOCK_CHECK)
            {
                emptyWaits = 0;
                final long waited = System.nanoTime() - start;
                if (waited > Waiting.TIMEOUT_NANOS)
                {
                    throw new IllegalStateException("thread " + index + ": READ on the shared queue pair did not complete within " +
                        TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
                }
            }
            idleStrategy.idle();
        }
        if (!completion[0].isSuccess() || completion[0].wrId() != index)
        {
            throw new IllegalStateException("thread " + index + ": expected a successful completion of its READ, got " + completion[0]);
        }
    }
}

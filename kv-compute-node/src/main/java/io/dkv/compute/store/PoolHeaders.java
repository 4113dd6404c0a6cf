package io.dkv.compute.store;

import io.dkv.client.KvClient;
import io.dkv.client.node.HeapLimits;
import io.dkv.client.node.MemoryNodeDisk;
import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.format.HeapLayout;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The memory nodes' disks and heaps as their index and heap headers show them, read every interval on a thread of its
 * own (two READs a node), so that INFO persistence, INFO memory and /metrics answer from the last reading without a
 * round trip on an event loop. It also keeps the pool's maxmemory whole: a memory node that comes without a limit
 * (started, restarted or joined since the limit was set) is given its share of what the others hold, at the reading
 * that finds it ({@link KvClient#giveMissingHeapLimits}).
 */
public final class PoolHeaders implements AutoCloseable
{
    /** A reading: the disks and heaps, and when they were read (the client's epoch clock). */
    public record Reading(List<MemoryNodeDisk> disks, List<MemoryNodeHeap> heaps, long readAtEpochMs)
    {
        /** The reading before the first. */
        public static final Reading NONE = new Reading(List.of(), List.of(), 0);

        /**
         * @return the nodes that keep keys on disk and say their disk failed (a write or fsync refused), as
         * "memory node 101" or "memory nodes 101, 102"; null when none does.
         */
        public String failing()
        {
            final StringBuilder nodes = new StringBuilder();
            int count = 0;
            for (final MemoryNodeDisk disk : disks)
            {
                if (disk.reachable() && disk.persistent() && !disk.lastFsyncOk())
                {
                    nodes.append(count++ == 0 ? "" : ", ").append(Long.toUnsignedString(disk.nodeId()));
                }
            }
            return count == 0 ? null : (count == 1 ? "memory node " : "memory nodes ") + nodes;
        }
    }

    private final KvClient client;
    private final ScheduledExecutorService thread;
    private volatile Reading latest = Reading.NONE;
    /** The most the pool's heaps held handed out at once, as this node's readings saw it: used_memory_peak. */
    private volatile long peakHandedOut;
    /** Of the latest reading: {@link Reading#failing}, worked out once a reading rather than once a command. */
    private volatile String failing;
    /** Of the latest reading: the pool's maxmemory as the heaps' limits hold it ({@link HeapLimits#maxMemory}). */
    private volatile long maxMemory;

    private PoolHeaders(final KvClient client)
    {
        this.client = client;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread reader = new Thread(runnable, "dkv-pool-headers");
            reader.setDaemon(true);
            return reader;
        });
    }

    /** @return the headers read now and then every {@code intervalMs}. */
    public static PoolHeaders start(final KvClient client, final long intervalMs)
    {
        final PoolHeaders headers = new PoolHeaders(client);
        headers.thread.scheduleWithFixedDelay(headers::readOnce, 0, intervalMs, TimeUnit.MILLISECONDS);
        return headers;
    }

    /** One reading now, on the caller's thread. */
    public void readOnce()
    {
        try
        {
            final Reading reading = new Reading(List.copyOf(client.memoryNodeDisks()),
                List.copyOf(client.memoryNodeHeaps()), client.epochClock().time());
            long handedOut = 0;
            for (final MemoryNodeHeap heap : reading.heaps())
            {
                handedOut += heap.handedOut();
            }
            peakHandedOut = Math.max(peakHandedOut, handedOut);
            failing = reading.failing();
            maxMemory = HeapLimits.maxMemory(reading.heaps());
            latest = reading;
            if (maxMemory > 0 && anyNeverLimited(reading))
            {
                client.giveMissingHeapLimits(reading.heaps());
            }
        }
        catch (final RuntimeException ex)
        {
            // the client closing, or no session to be had: the last reading stands, and its age says how old it is
        }
    }

    private static boolean anyNeverLimited(final Reading reading)
    {
        for (final MemoryNodeHeap heap : reading.heaps())
        {
            if (heap.told() && heap.limit() == HeapLayout.LIMIT_NEVER_SET)
            {
                return true;
            }
        }
        return false;
    }

    /** @return the pool's maxmemory as the latest reading's heap limits hold it; 0: none. */
    public long maxMemory()
    {
        return maxMemory;
    }

    /**
     * Set the pool's maxmemory on every memory node ({@link KvClient#maxMemory(long)}), then read the headers again,
     * so that this node answers the new setting at once; on the caller's thread, a round trip a node.
     *
     * @throws io.dkv.client.KvException naming the nodes that did not take it.
     */
    public void maxMemory(final long bytes)
    {
        try
        {
            client.maxMemory(bytes);
        }
        finally
        {
            readOnce();
        }
    }

    /** @return the nodes whose disk the latest reading found failing, or null (see {@link Reading#failing}). */
    public String failing()
    {
        return failing;
    }

    /** @return the last reading; {@link Reading#NONE} before the first. */
    public Reading latest()
    {
        return latest;
    }

    /** @return the most the pool's heaps held handed out at once, of the readings so far. */
    public long peakHandedOut()
    {
        return peakHandedOut;
    }

    public void close()
    {
        thread.shutdownNow();
        try
        {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

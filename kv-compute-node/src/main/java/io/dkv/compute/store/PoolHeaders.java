package io.dkv.compute.store;

import io.dkv.client.KvClient;
import io.dkv.client.node.MemoryNodeDisk;

import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The memory nodes' disks as their index headers show them, read every interval on a thread of its own (one READ a
 * node), so that INFO persistence answers from the last reading without a round trip on an event loop.
 */
public final class PoolDisks implements AutoCloseable
{
    /** A reading: the disks, and when they were read (the client's epoch clock). */
    public record Reading(List<MemoryNodeDisk> disks, long readAtEpochMs)
    {
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
    private volatile Reading latest = new Reading(List.of(), 0);
    /** Of the latest reading: {@link Reading#failing}, worked out once a reading rather than once a command. */
    private volatile String failing;

    private PoolDisks(final KvClient client)
    {
        this.client = client;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread reader = new Thread(runnable, "dkv-pool-disks");
            reader.setDaemon(true);
            return reader;
        });
    }

    /** @return the disks read now and then every {@code intervalMs}. */
    public static PoolDisks start(final KvClient client, final long intervalMs)
    {
        final PoolDisks disks = new PoolDisks(client);
        disks.thread.scheduleWithFixedDelay(disks::readOnce, 0, intervalMs, TimeUnit.MILLISECONDS);
        return disks;
    }

    /** One reading now, on the caller's thread. */
    public void readOnce()
    {
        try
        {
            final Reading reading = new Reading(List.copyOf(client.memoryNodeDisks()), client.epochClock().time());
            failing = reading.failing();
            latest = reading;
        }
        catch (final RuntimeException ex)
        {
            // the client closing, or no session to be had: the last reading stands, and its age says how old it is
        }
    }

    /** @return the nodes whose disk the latest reading found failing, or null (see {@link Reading#failing}). */
    public String failing()
    {
        return failing;
    }

    /** @return the last reading; none (no disks, read at 0) before the first. */
    public Reading latest()
    {
        return latest;
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

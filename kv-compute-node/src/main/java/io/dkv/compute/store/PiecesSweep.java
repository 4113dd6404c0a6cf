package io.dkv.compute.store;

import io.dkv.client.KvClient;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.compute.command.NodeStats;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Removes, every interval, the pieces of long strings that a writer began more than an interval ago and never
 * published (client/README.md, "Strings in pieces": a compute node killed while a 100 MB SET arrived leaves them).
 * On a thread of its own, as a sweep scans every memory node's index; every compute node runs one (two at once
 * conflict on a journal and one gives way). Failures are counted, and the next interval tries again.
 */
public final class PiecesSweep implements AutoCloseable
{
    private final PiecedStrings strings;
    private final long intervalMs;
    private final NodeStats stats;
    private final ScheduledExecutorService thread;

    private PiecesSweep(final KvClient client, final long intervalMs, final NodeStats stats)
    {
        this.strings = new PiecedStrings(client);
        this.intervalMs = intervalMs;
        this.stats = stats;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread sweeper = new Thread(runnable, "dkv-pieces-sweep");
            sweeper.setDaemon(true);
            return sweeper;
        });
    }

    /**
     * @param stats where sweeps, what they removed and their failures are counted (INFO stats).
     * @return a sweep every {@code intervalMs} of what is older than that, the first after one interval.
     */
    public static PiecesSweep start(final KvClient client, final long intervalMs, final NodeStats stats)
    {
        final PiecesSweep sweep = new PiecesSweep(client, intervalMs, stats);
        sweep.thread.scheduleWithFixedDelay(sweep::sweepOnce, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
        return sweep;
    }

    /** One sweep now, on the caller's thread. */
    public void sweepOnce()
    {
        try
        {
            stats.piecesSwept(strings.sweep(intervalMs));
        }
        catch (final RuntimeException ex)
        {
            // a node unreachable or full: its journals wait for the next sweep
            stats.piecesSweepFailed();
        }
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

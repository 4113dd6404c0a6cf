package io.dkv.compute.command;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A compute node's own figures for INFO: connections and commands, and the operations a second sampled as redis does
 * (the mean of the last 16 samples taken every 100 ms).
 */
public final class NodeStats
{
    private static final int SAMPLES = 16;

    private final long startMillis = System.currentTimeMillis();
    private final AtomicLong connected = new AtomicLong();
    private final LongAdder connectionsReceived = new LongAdder();
    private final LongAdder connectionsRejected = new LongAdder();
    private final LongAdder commands = new LongAdder();
    private final LongAdder protocolErrors = new LongAdder();
    private final LongAdder batchedReads = new LongAdder();
    private final LongAdder readBatches = new LongAdder();
    private final long[] opsPerSecSamples = new long[SAMPLES];
    private int sampleIndex;
    private long lastSampleCommands;
    private long lastSampleNanos = System.nanoTime();

    /** @return connections open now, after counting this one in. */
    public long connected()
    {
        connectionsReceived.increment();
        return connected.incrementAndGet();
    }

    /** @return connections open now, those being refused included: what maxclients counts. */
    public long open()
    {
        return connected.get();
    }

    public void disconnected()
    {
        connected.decrementAndGet();
    }

    /** A connection beyond maxclients was answered and closed: it was counted in by {@link #connected()}. */
    public void rejected()
    {
        connectionsRejected.increment();
    }

    public void protocolError()
    {
        protocolErrors.increment();
    }

    void command()
    {
        commands.increment();
    }

    /** @param requests pipelined GETs and MGETs answered by one lookup. */
    void readsBatched(final int requests)
    {
        batchedReads.add(requests);
        readBatches.increment();
    }

    /** @return GETs and MGETs answered together with others of their pipeline. */
    public long batchedReads()
    {
        return batchedReads.sum();
    }

    /** @return lookups (multiGets) that answered them. */
    public long readBatches()
    {
        return readBatches.sum();
    }

    /** Take one sample of the command rate; called every 100 ms by the node. */
    public synchronized void sample()
    {
        final long now = System.nanoTime();
        final long total = commands.sum();
        final long elapsed = Math.max(1, now - lastSampleNanos);
        opsPerSecSamples[sampleIndex++ % SAMPLES] = (total - lastSampleCommands) * 1_000_000_000L / elapsed;
        lastSampleCommands = total;
        lastSampleNanos = now;
    }

    synchronized long instantaneousOpsPerSec()
    {
        long sum = 0;
        for (final long sample : opsPerSecSamples)
        {
            sum += sample;
        }
        return sum / SAMPLES;
    }

    long connectedNow()
    {
        return connected.get();
    }

    long connectionsReceived()
    {
        return connectionsReceived.sum();
    }

    long connectionsRejected()
    {
        return connectionsRejected.sum();
    }

    long commandsProcessed()
    {
        return commands.sum();
    }

    long protocolErrors()
    {
        return protocolErrors.sum();
    }

    long uptimeSeconds()
    {
        return (System.currentTimeMillis() - startMillis) / 1000;
    }
}

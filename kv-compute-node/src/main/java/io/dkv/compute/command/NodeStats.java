package io.dkv.compute.command;

import io.dkv.compute.metrics.CommandLatency;
import io.dkv.compute.metrics.ProcessCpu;
import io.dkv.compute.metrics.ProcessTimes;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A compute node's own figures for INFO and its metrics endpoint: connections and commands, the operations a second
 * sampled as redis does (the mean of the last 16 samples taken every 100 ms), how long commands take and how busy the
 * process's CPUs are over a recent window, and whether the node is draining. Time is the node's clocks'.
 */
public final class NodeStats
{
    private static final int SAMPLES = 16;

    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final long startMillis;
    private final ProcessTimes times;
    private final CommandStats commandStats = new CommandStats();
    private final AtomicLong connected = new AtomicLong();
    private final LongAdder connectionsReceived = new LongAdder();
    private final LongAdder connectionsRejected = new LongAdder();
    private final LongAdder commands = new LongAdder();
    private final LongAdder protocolErrors = new LongAdder();
    private final LongAdder outputLimitCloses = new LongAdder();
    private final LongAdder clientsEvicted = new LongAdder();
    private volatile long clientsOutputBytes;
    private final LongAdder authFailures = new LongAdder();
    private final LongAdder batchedReads = new LongAdder();
    private final LongAdder readBatches = new LongAdder();
    private final LongAdder asyncSteps = new LongAdder();
    private final LongAdder storeThreadSteps = new LongAdder();
    private final LongAdder piecesSweeps = new LongAdder();
    private final LongAdder piecesSwept = new LongAdder();
    private final LongAdder piecesSweepFailures = new LongAdder();
    private final CommandLatency latency = new CommandLatency();
    private final ProcessCpu cpu;
    private final long[] opsPerSecSamples = new long[SAMPLES];
    private int sampleIndex;
    private long lastSampleCommands;
    private long lastSampleNanos;
    private volatile boolean draining;

    /**
     * @param epochClock what the node's uptime is counted by.
     * @param nanoClock  what the node's durations are measured by: the command rate's intervals, the commands', the
     *                   CPU utilization's window.
     */
    public NodeStats(final EpochClock epochClock, final NanoClock nanoClock)
    {
        this.epochClock = epochClock;
        this.nanoClock = nanoClock;
        this.startMillis = epochClock.time();
        this.lastSampleNanos = nanoClock.nanoTime();
        this.cpu = new ProcessCpu(epochClock, nanoClock);
        this.times = new ProcessTimes(cpu);
    }

    /** @return what the node's durations are measured by. */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /** @return how long commands take, recorded by each event loop into its own recorder. */
    public CommandLatency latency()
    {
        return latency;
    }

    /** @return how busy the process keeps the host's processors. */
    public ProcessCpu cpu()
    {
        return cpu;
    }

    /** @return the process's CPU time, user and system, as INFO cpu reports it. */
    public ProcessTimes times()
    {
        return times;
    }

    /** @return the commands' and errors' counts, as INFO commandstats and errorstats report them. */
    public CommandStats commandStats()
    {
        return commandStats;
    }

    /** End one interval of the recent window (a tenth of it): the node calls this from one thread. */
    public void sampleWindow()
    {
        latency.rotate();
        cpu.sample();
    }

    /** The node began to close: it accepts no more connections. */
    public void drainBegan()
    {
        draining = true;
    }

    /** @return whether the node began to close. */
    public boolean draining()
    {
        return draining;
    }

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

    /** A connection was closed for passing the output limit. */
    public void outputLimitClosed()
    {
        outputLimitCloses.increment();
    }

    /** @return connections closed for passing the output limit. */
    public long outputLimitCloses()
    {
        return outputLimitCloses.sum();
    }

    /** A connection was closed for the replies all the node's connections held (maxmemory-clients). */
    public void clientEvicted()
    {
        clientsEvicted.increment();
    }

    /** @return connections closed for the replies all the node's connections held (redis's evicted_clients). */
    public long clientsEvicted()
    {
        return clientsEvicted.sum();
    }

    /** @param bytes the replies pending across the node's connections, as last summed. */
    public void clientsOutputBytes(final long bytes)
    {
        clientsOutputBytes = bytes;
    }

    /** @return the replies pending across the node's connections, as last summed. */
    public long clientsOutputBytes()
    {
        return clientsOutputBytes;
    }

    void authFailed()
    {
        authFailures.increment();
    }

    /** @return failed AUTHs (and HELLO AUTHs). */
    public long authFailures()
    {
        return authFailures.sum();
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

    /** A request whose store operation went out asynchronously was answered. */
    void asyncStep()
    {
        asyncSteps.increment();
    }

    /** @return requests answered once their store operations, sent out asynchronously, completed. */
    public long asyncSteps()
    {
        return asyncSteps.sum();
    }

    /** Work of a request was handed to a store thread (no asynchronous form of the client carried it). */
    void storeThreadStep()
    {
        storeThreadSteps.increment();
    }

    /** @return requests whose store work went to a store thread: no asynchronous form of the client carried it. */
    public long storeThreadSteps()
    {
        return storeThreadSteps.sum();
    }

    /** @return GETs and MGETs answered together with others of their pipeline. */
    public long batchedReads()
    {
        return batchedReads.sum();
    }

    /** A sweep of pieces nobody published ended, removing {@code generations} generations of them. */
    public void piecesSwept(final long generations)
    {
        piecesSweeps.increment();
        piecesSwept.add(generations);
    }

    /** A sweep of pieces nobody published failed. */
    public void piecesSweepFailed()
    {
        piecesSweepFailures.increment();
    }

    public long piecesSweeps()
    {
        return piecesSweeps.sum();
    }

    public long piecesSwept()
    {
        return piecesSwept.sum();
    }

    public long piecesSweepFailures()
    {
        return piecesSweepFailures.sum();
    }

    /** @return lookups (multiGets) that answered them. */
    public long readBatches()
    {
        return readBatches.sum();
    }

    /** Take one sample of the command rate; called every 100 ms by the node. */
    public synchronized void sample()
    {
        final long now = nanoClock.nanoTime();
        final long total = commands.sum();
        final long elapsed = Math.max(1, now - lastSampleNanos);
        opsPerSecSamples[sampleIndex++ % SAMPLES] = (total - lastSampleCommands) * 1_000_000_000L / elapsed;
        lastSampleCommands = total;
        lastSampleNanos = now;
    }

    public synchronized long instantaneousOpsPerSec()
    {
        long sum = 0;
        for (final long sample : opsPerSecSamples)
        {
            sum += sample;
        }
        return sum / SAMPLES;
    }

    public long connectedNow()
    {
        return connected.get();
    }

    public long connectionsReceived()
    {
        return connectionsReceived.sum();
    }

    public long connectionsRejected()
    {
        return connectionsRejected.sum();
    }

    public long commandsProcessed()
    {
        return commands.sum();
    }

    public long protocolErrors()
    {
        return protocolErrors.sum();
    }

    public long uptimeSeconds()
    {
        return (epochClock.time() - startMillis) / 1000;
    }
}

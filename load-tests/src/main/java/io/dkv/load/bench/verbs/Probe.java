package io.dkv.load.bench.verbs;

import org.HdrHistogram.Histogram;

/**
 * Runs one kind of operation of one size against one subject (a verbs queue pair or a floor).
 * Each call continues through the probe's random offsets where the previous one stopped.
 */
interface Probe extends AutoCloseable
{
    /**
     * Run operations one at a time, timing each on its own.
     *
     * @param count     operations.
     * @param latencies where each operation's latency in nanoseconds is recorded.
     */
    void runTimed(int count, Histogram latencies);

    /**
     * Run operations as fast as the probe's throughput method allows, timing them together.
     *
     * @param count operations.
     * @return nanoseconds the run took.
     */
    long runBatch(int count);

    default void close()
    {
    }
}

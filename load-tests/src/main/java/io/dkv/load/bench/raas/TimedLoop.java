package io.dkv.load.bench.raas;

import org.HdrHistogram.Histogram;

/**
 * Operations of one subject run one at a time, each timed on its own. The loop lives in the
 * subject, so that the call it times is not made through an interface shared by all subjects.
 */
@FunctionalInterface
interface TimedLoop
{
    /**
     * @param count     operations.
     * @param latencies where each operation's latency in nanoseconds is recorded.
     */
    void run(int count, Histogram latencies);
}

package io.dkv.load.bench.ycsb;

import java.util.List;

/**
 * Every phase dkv ran with one replica count, on a store of its own.
 *
 * @param replicas copies of each key the client kept.
 * @param runs     the load and each workload at each thread count, in the order run; the Redis side
 *                 only where this pass ran beside Redis.
 */
record ReplicaPass(int replicas, List<SideBySide> runs)
{
    /** @return the run of the phase at the thread count, or null if this pass did not run it. */
    SideBySide run(final YcsbWorkload phase, final int threads)
    {
        for (final SideBySide run : runs)
        {
            if (run.phase() == phase && run.threads() == threads)
            {
                return run;
            }
        }
        return null;
    }
}

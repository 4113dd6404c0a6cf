package io.dkv.load.bench.ycsb;

/**
 * One phase at one thread count on dkv and, when it ran, on Redis.
 *
 * @param phase   the workload, or null for the load.
 * @param threads client threads on each side.
 * @param dkv     dkv's run.
 * @param redis   Redis's run, or null when Redis was off.
 */
record SideBySide(YcsbWorkload phase, int threads, RunResult dkv, RunResult redis)
{
    String title()
    {
        return phase == null ? "load" : phase.title();
    }

    boolean hasRedis()
    {
        return redis != null;
    }

    /** @return dkv's throughput over Redis's: higher is better for dkv. */
    double throughputRatio()
    {
        return dkv.opsPerSecond() / redis.opsPerSecond();
    }

    /** @return dkv's median latency over Redis's: lower is better for dkv. */
    double p50Ratio()
    {
        return (double)dkv.p50Nanos() / redis.p50Nanos();
    }

    double p99Ratio()
    {
        return (double)dkv.p99Nanos() / redis.p99Nanos();
    }
}

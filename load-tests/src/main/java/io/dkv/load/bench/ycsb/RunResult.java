package io.dkv.load.bench.ycsb;

import org.HdrHistogram.Histogram;

/**
 * What one run of a phase (the load, or a workload at a thread count) on one store measured.
 *
 * @param store        where it ran.
 * @param threads      client threads.
 * @param operations   YCSB operations done (a read-modify-write is one).
 * @param elapsedNanos from the threads' common start to the last one's end.
 * @param latency      every call into the store, in nanoseconds.
 * @param reads        the reads among them.
 * @param failures     calls that did not answer OK.
 * @param firstFailure what the first of them answered, or null.
 * @param cpu          CPU time the run took, by whom.
 */
record RunResult(
    Store store, int threads, long operations, long elapsedNanos, Histogram latency, Histogram reads, long failures,
    String firstFailure, CpuTimes cpu)
{
    /** @return CPU time of the client threads per operation, in nanoseconds. */
    double clientCpuNanosPerOperation()
    {
        return (double)cpu.clientNanos() / operations;
    }

    /** @return CPU time of this process and the store's own process (if apart) per operation, in nanoseconds. */
    double allCpuNanosPerOperation()
    {
        return (double)(cpu.processNanos() + cpu.serverNanos()) / operations;
    }

    /** @return cores kept busy on average over the run, by this process and the store's own. */
    double coresBusy()
    {
        return (double)(cpu.processNanos() + cpu.serverNanos()) / elapsedNanos;
    }

    double opsPerSecond()
    {
        return operations * 1e9 / elapsedNanos;
    }

    double opsPerSecondPerThread()
    {
        return opsPerSecond() / threads;
    }

    long p50Nanos()
    {
        return latency.getValueAtPercentile(50.0);
    }

    long p99Nanos()
    {
        return latency.getValueAtPercentile(99.0);
    }

    boolean hasReads()
    {
        return reads.getTotalCount() > 0;
    }

    long readP50Nanos()
    {
        return reads.getValueAtPercentile(50.0);
    }
}

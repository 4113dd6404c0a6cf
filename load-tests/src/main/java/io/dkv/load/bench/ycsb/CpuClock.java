package io.dkv.load.bench.ycsb;

import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * A source of CPU time in nanoseconds, read before and after a run: on a machine with fewer cores
 * than busy threads, CPU time per operation says what wall time per operation cannot.
 */
@FunctionalInterface
interface CpuClock
{
    /** No process of its own: reads 0. */
    CpuClock NONE = () -> 0;

    /** This JVM: every thread in it. */
    CpuClock PROCESS = () -> ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();

    long nanos();

    /**
     * @param process another process, read through the operating system (clock ticks: 10 ms on Linux).
     * @return its CPU time so far, or 0 once it is gone.
     */
    static CpuClock of(final ProcessHandle process)
    {
        return () -> process.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** @return the calling thread's CPU time so far. */
    static long currentThreadNanos()
    {
        return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }
}

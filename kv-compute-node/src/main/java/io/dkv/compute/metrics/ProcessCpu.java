package io.dkv.compute.metrics;

import com.sun.management.OperatingSystemMXBean;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

/**
 * How busy this process keeps the host's processors: its CPU time ({@link OperatingSystemMXBean#getProcessCpuTime()})
 * over the wall time since the oldest of the last {@value CommandLatency#INTERVALS} samples, times the processors
 * available, so 1 means every processor busy for the whole window. The node samples once an interval; a reading
 * measures to the moment it is taken.
 *
 * <p>The JDK's management classes load on the first sample or reading, not when the node starts: they would add tens
 * of milliseconds to a join, which is benchmarked. Until then the process's start stands as the oldest sample (CPU
 * time 0), so an early reading covers the process's life so far.
 */
public final class ProcessCpu
{
    private static final int SAMPLES = CommandLatency.INTERVALS + 1;

    private final int processors = Runtime.getRuntime().availableProcessors();
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final long[] wallNanos = new long[SAMPLES];
    private final long[] cpuNanos = new long[SAMPLES];
    private int next;
    private int taken;
    private OperatingSystemMXBean os;
    private long startMillis;

    /**
     * @param epochClock what the time since the process started is read by, for the first sample.
     * @param nanoClock  what the wall time between samples is measured by.
     */
    public ProcessCpu(final EpochClock epochClock, final NanoClock nanoClock)
    {
        this.epochClock = epochClock;
        this.nanoClock = nanoClock;
    }

    /** Take a sample: the node calls this once an interval, from one thread. */
    public synchronized void sample()
    {
        start();
        add(nanoClock.nanoTime(), os.getProcessCpuTime());
    }

    /** @return CPU time over wall time times processors, 0 to 1, over the last window until now; NaN if unknown. */
    public synchronized double utilization()
    {
        start();
        final long cpu = os.getProcessCpuTime();
        final long now = nanoClock.nanoTime();
        final int oldest = taken < SAMPLES ? 0 : next;
        final long wall = now - wallNanos[oldest];
        if (cpu < 0 || cpuNanos[oldest] < 0)
        {
            return Double.NaN;
        }
        if (wall <= 0)
        {
            return 0;
        }
        return Math.clamp((double)(cpu - cpuNanos[oldest]) / ((double)wall * processors), 0.0, 1.0);
    }

    /** @return CPU time this process has used, in seconds; NaN if the platform does not tell it. */
    public synchronized double cpuSeconds()
    {
        start();
        final long cpu = os.getProcessCpuTime();
        return cpu < 0 ? Double.NaN : cpu / 1e9;
    }

    /** @return when this process started, in seconds since the epoch. */
    public synchronized double startTimeSeconds()
    {
        start();
        return startMillis / 1e3;
    }

    private void start()
    {
        if (os != null)
        {
            return;
        }
        os = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
        startMillis = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli)
            .orElseGet(() -> ManagementFactory.getRuntimeMXBean().getStartTime());
        final long sinceStartMillis = Math.max(0, epochClock.time() - startMillis);
        final long sinceStartNanos = TimeUnit.MILLISECONDS.toNanos(sinceStartMillis);
        add(nanoClock.nanoTime() - sinceStartNanos, 0);
    }

    private void add(final long wall, final long cpu)
    {
        wallNanos[next] = wall;
        cpuNanos[next] = cpu;
        next = (next + 1) % SAMPLES;
        taken = Math.min(taken + 1, SAMPLES);
    }
}

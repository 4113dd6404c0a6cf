package io.dkv.compute.metrics;

import io.netty.util.concurrent.EventExecutor;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * How long a node's requests take, from decoded to their reply written: quantiles over a recent window, and the count
 * and sum since start. Each event loop thread records into its own {@link LatencyRecorder}, so the hot path contends
 * with no other thread and allocates nothing; the window is {@value #INTERVALS} intervals that {@link #rotate()} moves
 * on (the node calls it every tenth of the window), and a reading first takes in what the recorders hold, so it counts
 * the requests answered just before it. The window's histograms are made on the first rotation or reading, off a
 * node's start, which is benchmarked.
 */
public final class CommandLatency
{
    /** The window is this many intervals: the node rotates it, and samples the CPU, every tenth of the window. */
    public static final int INTERVALS = 10;
    static final long LOWEST_NANOS = 1;
    /** A minute: beyond any store timeout; longer durations are counted as this. */
    static final long HIGHEST_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** 1% resolution: quantiles an autoscaler compares with a target need no more, and a histogram is 30 KiB. */
    static final int SIGNIFICANT_DIGITS = 2;

    private final Map<EventExecutor, LatencyRecorder> byLoop = new ConcurrentHashMap<>();
    private final List<LatencyRecorder> recorders = new CopyOnWriteArrayList<>();
    private Histogram[] intervals;
    private Histogram window;
    private int current;

    private static Histogram histogram()
    {
        return new Histogram(LOWEST_NANOS, HIGHEST_NANOS, SIGNIFICANT_DIGITS);
    }

    /**
     * @param loop an event loop whose thread alone will record into the recorder returned.
     * @return that loop's recorder, made on the first call for it (the node makes each as its loops start).
     */
    public LatencyRecorder recorderFor(final EventExecutor loop)
    {
        return byLoop.computeIfAbsent(loop, ignored ->
        {
            final LatencyRecorder recorder = new LatencyRecorder();
            recorders.add(recorder);
            return recorder;
        });
    }

    /** End the current interval: the oldest leaves the window and begins again empty. */
    public synchronized void rotate()
    {
        collect();
        current = (current + 1) % INTERVALS;
        intervals[current].reset();
    }

    /** @return the window's quantiles and the totals, the requests answered until now included. */
    public synchronized LatencySnapshot snapshot()
    {
        collect();
        window.reset();
        for (final Histogram interval : intervals)
        {
            window.add(interval);
        }
        long count = 0;
        long sumNanos = 0;
        for (final LatencyRecorder recorder : recorders)
        {
            count += recorder.count();
            sumNanos += recorder.sumNanos();
        }
        final long windowCount = window.getTotalCount();
        return new LatencySnapshot(windowCount, windowCount == 0 ? 0 : window.getValueAtPercentile(50.0),
            windowCount == 0 ? 0 : window.getValueAtPercentile(99.0), count, sumNanos);
    }

    private void collect()
    {
        if (intervals == null)
        {
            intervals = new Histogram[INTERVALS];
            for (int i = 0; i < INTERVALS; i++)
            {
                intervals[i] = histogram();
            }
            window = histogram();
        }
        for (final LatencyRecorder recorder : recorders)
        {
            recorder.drainInto(intervals[current]);
        }
    }
}

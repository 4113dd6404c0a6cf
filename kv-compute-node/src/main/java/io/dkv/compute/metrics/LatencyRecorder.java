package io.dkv.compute.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One event loop thread's record of how long its requests took: an HdrHistogram {@link SingleWriterRecorder} that
 * only that thread writes, so recording is two uncontended atomic increments and no allocation, and the count and sum
 * since start, which only it writes too (ordered stores that readers on other threads see whole).
 */
public final class LatencyRecorder
{
    private final SingleWriterRecorder recorder = new SingleWriterRecorder(
        CommandLatency.LOWEST_NANOS, CommandLatency.HIGHEST_NANOS, CommandLatency.SIGNIFICANT_DIGITS);
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong sumNanos = new AtomicLong();
    private Histogram interval;

    LatencyRecorder()
    {
    }

    /**
     * Record requests answered together; the owning event loop thread only.
     *
     * @param decodedNanos when they were decoded, by the node's clock.
     * @param requests     how many were decoded then.
     * @param writtenNanos when their replies were written.
     */
    public void record(final long decodedNanos, final int requests, final long writtenNanos)
    {
        final long nanos = Math.max(0, writtenNanos - decodedNanos);
        recorder.recordValueWithCount(Math.min(nanos, CommandLatency.HIGHEST_NANOS), requests);
        count.setRelease(count.getPlain() + requests);
        sumNanos.setRelease(sumNanos.getPlain() + nanos * requests);
    }

    /** Add what was recorded since the last call to {@code into}; under {@link CommandLatency}'s lock. */
    void drainInto(final Histogram into)
    {
        interval = recorder.getIntervalHistogram(interval);
        into.add(interval);
    }

    long count()
    {
        return count.getAcquire();
    }

    long sumNanos()
    {
        return sumNanos.getAcquire();
    }
}

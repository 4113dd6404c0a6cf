package io.dkv.compute.metrics;

/**
 * Command durations as one reading gives them.
 *
 * @param windowCount requests answered within the recent window.
 * @param p50Nanos    the window's median, or 0 when it holds none.
 * @param p99Nanos    the window's 99th percentile, or 0 when it holds none.
 * @param count       requests answered since start.
 * @param sumNanos    their durations' sum.
 */
public record LatencySnapshot(long windowCount, long p50Nanos, long p99Nanos, long count, long sumNanos)
{
}

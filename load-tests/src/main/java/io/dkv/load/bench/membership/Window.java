package io.dkv.load.bench.membership;

import org.HdrHistogram.Histogram;

/**
 * What the clients saw in one window of the run: every read's and update's latency, and the operations that failed.
 *
 * @param name         what ran meanwhile, e.g. "during the join".
 * @param nanos        how long the window lasted.
 * @param reads        latency of each read that returned, ns.
 * @param updates      latency of each update that returned, ns.
 * @param failed       operations that threw, or reads that returned no value of their key.
 * @param firstFailure what the first failure said, or null.
 */
record Window(String name, long nanos, Histogram reads, Histogram updates, long failed, String firstFailure)
{
    /** @return reads and updates together. */
    Histogram all()
    {
        final Histogram all = reads.copy();
        all.add(updates);
        return all;
    }

    long operations()
    {
        return reads.getTotalCount() + updates.getTotalCount();
    }

    double opsPerSecond()
    {
        return operations() * 1e9 / nanos;
    }
}

package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * A latency application's 8 B READs alone and beside a bulk application's 64 KiB WRITEs through one standalone
 * driver, the bulk application served as latency (no isolation: its requests taken as read) and as bulk.
 *
 * @param provider     the provider.
 * @param solo         the latency application alone: p50 and p99, ns.
 * @param shared       beside the bulk application, without isolation.
 * @param isolated     beside the bulk application, with isolation.
 * @param bulkSolo     the bulk application's MB/s alone.
 * @param bulkShared   its MB/s beside the latency application, without isolation.
 * @param bulkIsolated its MB/s beside the latency application, with isolation.
 */
record IsolationRow(
    Provider provider,
    long[] solo,
    long[] shared,
    long[] isolated,
    double bulkSolo,
    double bulkShared,
    double bulkIsolated)
{
    /** @return p99 beside the bulk application with isolation / alone; lower is better. */
    double isolatedP99Ratio()
    {
        return (double)isolated[1] / solo[1];
    }

    double sharedP99Ratio()
    {
        return (double)shared[1] / solo[1];
    }

    /** @return the bulk application's throughput with isolation / alone; higher is better. */
    double bulkKept()
    {
        return bulkIsolated / bulkSolo;
    }
}

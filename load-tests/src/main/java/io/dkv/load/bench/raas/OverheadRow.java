package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * The latency of a synchronous READ through a driver on one path beside the same READ on a raw
 * queue pair, timed in alternating blocks with it.
 *
 * @param provider the provider.
 * @param path     the driver's queue pairs the RaaS requests travelled on.
 * @param driver   where the driver ran.
 * @param size     bytes per READ.
 * @param raas     RaaS latency.
 * @param raw      raw verbs latency.
 */
record OverheadRow(Provider provider, RaasPath path, DriverMode driver, int size, Latency raas, Latency raw)
{
    /** @return nanoseconds RaaS adds at the median. */
    long addedP50Nanos()
    {
        return raas.p50Nanos() - raw.p50Nanos();
    }

    long addedP99Nanos()
    {
        return raas.p99Nanos() - raw.p99Nanos();
    }
}

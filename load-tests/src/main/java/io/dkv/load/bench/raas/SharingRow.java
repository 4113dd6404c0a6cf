package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * Threads reading at once: each over its own logical connection multiplexed on the shared queue
 * pairs of one path, beside the same threads taking turns on one raw queue pair under a lock
 * (measured once per thread count, whatever the path).
 *
 * @param provider the provider.
 * @param path     the driver's queue pairs the RaaS requests travelled on.
 * @param threads  threads reading at once.
 * @param raas     RaaS figures.
 * @param locked   raw figures.
 */
record SharingRow(Provider provider, RaasPath path, int threads, SharedReaders.Result raas, SharedReaders.Result locked)
    implements PathRow
{
    /** @return RaaS ops/s / locked ops/s; higher is better. */
    double ratio()
    {
        return raas.opsPerSecond() / locked.opsPerSecond();
    }
}

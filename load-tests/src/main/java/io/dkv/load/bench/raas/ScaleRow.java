package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * Throughput and memory of READs over {@code connections} logical connections on one path, beside
 * as many raw queue pairs (measured once per count, whatever the path).
 *
 * @param provider          the provider.
 * @param path              the driver's queue pairs the requests travelled on.
 * @param connections       logical connections, and raw queue pairs on each end.
 * @param operations        READs timed per count and side.
 * @param raasOpsPerSecond  RaaS throughput.
 * @param raasMemory        memory per logical connection.
 * @param rawOpsPerSecond   raw throughput, NaN when the baseline could not be set up.
 * @param rawMemory         memory per raw queue pair, null when the baseline could not be set up.
 * @param rawFailure        why the baseline could not be set up, or null.
 */
record ScaleRow(
    Provider provider,
    RaasPath path,
    int connections,
    int operations,
    double raasOpsPerSecond,
    MemoryFootprint raasMemory,
    double rawOpsPerSecond,
    MemoryFootprint rawMemory,
    String rawFailure) implements PathRow
{
    boolean hasRaw()
    {
        return rawFailure == null;
    }

    /** @return RaaS ops/s / raw ops/s; higher is better. */
    double raasToRaw()
    {
        return raasOpsPerSecond / rawOpsPerSecond;
    }
}

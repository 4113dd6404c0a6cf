package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

/**
 * Reaching memory nodes for the first time through a standalone driver against a fresh RC queue
 * pair each, on one provider.
 *
 * @param provider the provider.
 * @param raas     metadata read, logical connection and first 8 B READ, through the standalone driver.
 * @param raw      two RC queue pairs created and connected, and the first 8 B READ.
 * @param floor    the first 8 B READ from a ready raw DC initiator, handed the node's DC target: what
 *                 the provider costs to meet a device for the first time.
 * @param lookup   the RaaS join's first step: the region's descriptor (lookup).
 * @param open     its second: the logical connection to the region's node (open).
 * @param read     its third: the first READ, which meets the node's device for the first time.
 * @param freshDriverP50Nanos median RaaS join over the first batch of warm-up nodes, the first nodes a
 *                 just-started driver meets (its join path not yet compiled); -1 without warm-up nodes.
 */
record JoinRow(
    Provider provider, Latency raas, Latency raw, Latency floor, Latency lookup, Latency open, Latency read,
    long freshDriverP50Nanos)
{
    /** @return nanoseconds the RaaS join takes beyond the provider's first READ, at the median. */
    long addedToFloorP50Nanos()
    {
        return raas.p50Nanos() - floor.p50Nanos();
    }
}

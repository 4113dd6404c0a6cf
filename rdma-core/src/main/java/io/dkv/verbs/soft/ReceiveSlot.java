package io.dkv.verbs.soft;

import io.dkv.verbs.ScatterGatherList;

/**
 * One posted receive request: where an incoming message is scattered.
 */
public final class ReceiveSlot
{
    public long wrId;
    public final ScatterGatherList sgList;
    /** Regions the SGEs resolved to, filled by {@link LocalMemory#checkReceive}. */
    public final SoftMemoryRegion[] sgeRegion;

    public ReceiveSlot(final int maxSge)
    {
        sgList = new ScatterGatherList(maxSge);
        sgeRegion = new SoftMemoryRegion[maxSge];
    }

    void copyFrom(final ReceiveSlot other)
    {
        wrId = other.wrId;
        sgList.copyFrom(other.sgList);
    }
}

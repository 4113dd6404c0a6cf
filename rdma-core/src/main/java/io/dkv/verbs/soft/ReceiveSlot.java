package io.dkv.verbs.soft;

/**
 * One posted receive request: where an incoming message is scattered.
 */
public final class ReceiveSlot
{
    public long wrId;
    public int numSge;
    public final long[] sgeAddr;
    public final int[] sgeLength;
    public final int[] sgeLkey;
    /** Regions the SGEs resolved to, filled by {@link LocalMemory#checkReceive}. */
    public final SoftMemoryRegion[] sgeRegion;

    public ReceiveSlot(final int maxSge)
    {
        sgeAddr = new long[maxSge];
        sgeLength = new int[maxSge];
        sgeLkey = new int[maxSge];
        sgeRegion = new SoftMemoryRegion[maxSge];
    }

    void copyFrom(final ReceiveSlot other)
    {
        wrId = other.wrId;
        numSge = other.numSge;
        System.arraycopy(other.sgeAddr, 0, sgeAddr, 0, other.numSge);
        System.arraycopy(other.sgeLength, 0, sgeLength, 0, other.numSge);
        System.arraycopy(other.sgeLkey, 0, sgeLkey, 0, other.numSge);
    }

    /** @return the total bytes the slot can take. */
    public long capacity()
    {
        long total = 0;
        for (int i = 0; i < numSge; i++)
        {
            total += sgeLength[i];
        }
        return total;
    }
}

package io.dkv.verbs;

/**
 * A receive work request, as {@code struct ibv_recv_wr}: mutable and reusable; requests chained
 * through {@link #next(RecvWorkRequest)} are posted in one call.
 */
public final class RecvWorkRequest
{
    private final ScatterGatherElement[] sgList;
    private int numSge;
    private long wrId;
    private RecvWorkRequest next;

    public RecvWorkRequest()
    {
        this(4);
    }

    public RecvWorkRequest(final int maxSge)
    {
        sgList = new ScatterGatherElement[maxSge];
        for (int i = 0; i < maxSge; i++)
        {
            sgList[i] = new ScatterGatherElement();
        }
    }

    public ScatterGatherElement sge(final int index)
    {
        return sgList[index];
    }

    public int maxSge()
    {
        return sgList.length;
    }

    public int numSge()
    {
        return numSge;
    }

    public RecvWorkRequest numSge(final int numSge)
    {
        if (numSge < 0 || numSge > sgList.length)
        {
            throw new IllegalArgumentException("numSge " + numSge + " outside 0.." + sgList.length);
        }
        this.numSge = numSge;
        return this;
    }

    /**
     * Make the scatter/gather list exactly one element covering part of a region.
     *
     * @param region the local region.
     * @param offset byte offset inside it.
     * @param length number of bytes.
     * @return this.
     */
    public RecvWorkRequest local(final MemoryRegion region, final long offset, final int length)
    {
        sgList[0].set(region, offset, length);
        numSge = 1;
        return this;
    }

    public long wrId()
    {
        return wrId;
    }

    public RecvWorkRequest wrId(final long wrId)
    {
        this.wrId = wrId;
        return this;
    }

    public RecvWorkRequest next()
    {
        return next;
    }

    public RecvWorkRequest next(final RecvWorkRequest next)
    {
        this.next = next;
        return this;
    }
}

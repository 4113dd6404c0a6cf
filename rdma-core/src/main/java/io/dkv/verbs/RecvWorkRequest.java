package io.dkv.verbs;

/**
 * A receive work request, as {@code struct ibv_recv_wr}: mutable and reusable; requests chained
 * through {@link #next(RecvWorkRequest)} are posted in one call.
 */
public final class RecvWorkRequest
{
    private final ScatterGatherList sgList;
    private long wrId;
    private RecvWorkRequest next;

    public RecvWorkRequest()
    {
        this(4);
    }

    /**
     * @param maxSge how many scatter/gather entries this request can carry.
     */
    public RecvWorkRequest(final int maxSge)
    {
        sgList = new ScatterGatherList(maxSge);
    }

    /** @return where an incoming message is scattered. */
    public ScatterGatherList sgList()
    {
        return sgList;
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
        sgList.set(region, offset, length);
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

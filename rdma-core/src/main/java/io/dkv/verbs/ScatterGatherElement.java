package io.dkv.verbs;

/**
 * One entry of a scatter/gather list, as {@code struct ibv_sge}: {@code length} bytes at virtual
 * address {@code addr} inside the memory region whose local key is {@code lkey}.
 */
public final class ScatterGatherElement
{
    private long addr;
    private int length;
    private int lkey;

    public long addr()
    {
        return addr;
    }

    public int length()
    {
        return length;
    }

    public int lkey()
    {
        return lkey;
    }

    public ScatterGatherElement addr(final long addr)
    {
        this.addr = addr;
        return this;
    }

    public ScatterGatherElement length(final int length)
    {
        this.length = length;
        return this;
    }

    public ScatterGatherElement lkey(final int lkey)
    {
        this.lkey = lkey;
        return this;
    }

    /**
     * Point this element at part of a registered region.
     *
     * @param region the region.
     * @param offset byte offset inside the region.
     * @param length number of bytes.
     * @return this.
     */
    public ScatterGatherElement set(final MemoryRegion region, final long offset, final int length)
    {
        this.addr = region.address() + offset;
        this.length = length;
        this.lkey = region.lkey();
        return this;
    }

    public String toString()
    {
        return "sge{addr=0x" + Long.toHexString(addr) + ", length=" + length + ", lkey=0x" + Integer.toHexString(lkey) +
            '}';
    }
}

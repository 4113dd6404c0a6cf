package io.dkv.verbs.soft;

import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A region registered with a software device. The key is {@code index << 8 | tag}, the same value
 * serving as lkey and rkey; the tag changes each time an index is reused so that a stale key
 * never matches a new region.
 */
public final class SoftMemoryRegion implements MemoryRegion
{
    private final SoftProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final int key;
    private final int access;
    private final Runnable release;
    private volatile boolean registered = true;

    SoftMemoryRegion(
        final SoftProtectionDomain pd,
        final MemorySegment segment,
        final int key,
        final int access,
        final Runnable release)
    {
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.key = key;
        this.access = access;
        this.release = release;
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public long address()
    {
        return address;
    }

    public long length()
    {
        return segment.byteSize();
    }

    public int lkey()
    {
        return key;
    }

    public int rkey()
    {
        return key;
    }

    public int access()
    {
        return access;
    }

    public SoftProtectionDomain pd()
    {
        return pd;
    }

    public boolean isRegistered()
    {
        return registered;
    }

    /**
     * @param addr   virtual address.
     * @param length bytes.
     * @return true when [addr, addr + length) lies inside this region.
     */
    public boolean contains(final long addr, final long length)
    {
        return length >= 0 && addr >= address && addr - address <= segment.byteSize() - length;
    }

    public void deregister()
    {
        pd.softDevice().deregister(this);
    }

    void markDeregistered()
    {
        registered = false;
    }

    void releaseMemory()
    {
        if (release != null)
        {
            release.run();
        }
    }

    public String toString()
    {
        return "mr{key=0x" + Integer.toHexString(key) + ", addr=0x" + Long.toHexString(address) + ", length=" +
            segment.byteSize() + ", access=" + Access.describe(access) + (registered ? "" : ", deregistered") + '}';
    }
}

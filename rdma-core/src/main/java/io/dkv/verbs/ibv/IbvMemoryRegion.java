package io.dkv.verbs.ibv;

import io.dkv.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.ibv.IbvLayout.MR;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A region registered with {@code ibv_reg_mr}: its keys are the RNIC's; memory the provider mapped for it is unmapped
 * once it is deregistered.
 */
final class IbvMemoryRegion implements MemoryRegion
{
    private final IbvProtectionDomain pd;
    private final IbvFunctions functions;
    private final MemorySegment mr;
    private final MemorySegment segment;
    private final boolean mapped;
    private final int access;
    private final int lkey;
    private final int rkey;
    private volatile boolean registered = true;

    IbvMemoryRegion(
        final IbvProtectionDomain pd,
        final IbvFunctions functions,
        final MemorySegment mr,
        final MemorySegment segment,
        final boolean mapped,
        final int access)
    {
        this.pd = pd;
        this.functions = functions;
        this.mr = mr.reinterpret(MR.byteSize());
        this.segment = segment;
        this.mapped = mapped;
        this.access = access;
        lkey = this.mr.get(JAVA_INT, offset(MR, "lkey"));
        rkey = this.mr.get(JAVA_INT, offset(MR, "rkey"));
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public long address()
    {
        return segment.address();
    }

    public long length()
    {
        return segment.byteSize();
    }

    public int lkey()
    {
        return lkey;
    }

    public int rkey()
    {
        return rkey;
    }

    public int access()
    {
        return access;
    }

    public boolean isRegistered()
    {
        return registered;
    }

    public synchronized void deregister()
    {
        if (!registered)
        {
            return;
        }
        registered = false;
        pd.disown(this);
        try
        {
            IbvFunctions.destroy(functions.deregMr, mr, "ibv_dereg_mr(lkey 0x" + Integer.toHexString(lkey) + ")");
        }
        finally
        {
            if (mapped)
            {
                AnonymousMemory.unmap(segment);
            }
        }
    }

    public String toString()
    {
        return "mr{addr=0x" + Long.toHexString(address()) + ", length=" + length() + ", lkey=0x" +
            Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + '}';
    }
}

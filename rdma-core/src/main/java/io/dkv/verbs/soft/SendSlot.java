package io.dkv.verbs.soft;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.ScatterGatherList;
import io.dkv.verbs.WcStatus;

import java.lang.foreign.MemorySegment;

/**
 * One entry of a software send queue: a copy of the posted work request (the hardware's WQE) plus
 * its progress. Preallocated per queue; reused once completed.
 */
public final class SendSlot
{
    public static final int FREE = 0;
    /** Queued, not yet handed to the transport. */
    public static final int POSTED = 1;
    /** Handed to the transport, awaiting the responder. */
    public static final int SENT = 2;
    /** Finished; waiting for the slots before it so completions come out in order. */
    public static final int DONE = 3;

    public int state = FREE;
    public int psn;
    public long wrId;
    public Opcode opcode;
    public int sendFlags;
    public boolean signaled;
    /** The posted request's local memory. */
    public final ScatterGatherList sgList;
    /** Regions the elements resolved to, filled by {@link LocalMemory#resolveSend}. */
    public final SoftMemoryRegion[] sgeRegion;
    /** Payload copied at post time for INLINE requests (null when the QP allows no inline data). */
    public final MemorySegment inlineData;
    public boolean isInline;
    /** Payload bytes for SEND/WRITE, bytes to read for READ, 8 for atomics. */
    public int length;
    public int immData;
    public long remoteAddr;
    public int rkey;
    public long compareAdd;
    public long swap;
    public SoftAddressHandle ah;
    public int remoteQpn;
    public int remoteQkey;
    public int dctNumber;
    public long dcKey;
    /** Set at post when the local buffers failed their check; reported when the slot's turn comes. */
    public WcStatus localError;
    public WcStatus status;

    SendSlot(final int maxSge, final MemorySegment inlineData)
    {
        sgList = new ScatterGatherList(maxSge);
        sgeRegion = new SoftMemoryRegion[maxSge];
        this.inlineData = inlineData;
    }

    void clearReferences()
    {
        for (int i = 0; i < sgList.numSge(); i++)
        {
            sgeRegion[i] = null;
        }
        ah = null;
    }
}

package io.dkv.verbs.soft;

import io.dkv.verbs.Access;
import io.dkv.verbs.ScatterGatherElement;
import io.dkv.verbs.ScatterGatherList;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Moves bytes between scatter/gather lists and other memory, after the checks an RNIC makes on
 * local keys: the key names a registered region of the queue pair's protection domain, the range
 * lies inside it, and writes need LOCAL_WRITE.
 */
public final class LocalMemory
{
    /**
     * The whole address space: inline payloads are gathered from raw addresses without a key, as
     * ibverbs does.
     */
    static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** What the software providers write as a datagram's global route header: zeros, which nothing reads. */
    public static final MemorySegment GRH_BYTES = Arena.global().allocate(WorkCompletion.GRH_LENGTH);

    private static final ValueLayout.OfLong BIG_ENDIAN_LONG_UNALIGNED =
        ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private LocalMemory()
    {
    }

    /**
     * Resolve the local buffers of a send request.
     *
     * @param writes true when the operation writes into them (READ and atomic results).
     * @return SUCCESS or LOC_PROT_ERR.
     */
    static WcStatus resolveSend(final SoftDevice device, final SoftProtectionDomain pd, final SendSlot slot,
        final boolean writes)
    {
        return resolve(device, pd, slot.sgList, slot.sgeRegion, writes) ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR;
    }

    /**
     * Resolve the buffers of a receive request for a message of {@code length} bytes.
     *
     * @return SUCCESS, LOC_PROT_ERR for a bad key or range, LOC_LEN_ERR when the message does not fit.
     */
    public static WcStatus checkReceive(
        final SoftDevice device, final SoftProtectionDomain pd, final ReceiveSlot slot, final long length)
    {
        if (!resolve(device, pd, slot.sgList, slot.sgeRegion, true))
        {
            return WcStatus.LOC_PROT_ERR;
        }
        return slot.sgList.totalLength() < length ? WcStatus.LOC_LEN_ERR : WcStatus.SUCCESS;
    }

    /**
     * Find the region of each element of a list, as an RNIC checks a local key.
     *
     * @return false when an element's key names no region of the domain, its range is not inside the
     * region, or the region is not writable when {@code writes}.
     */
    private static boolean resolve(
        final SoftDevice device,
        final SoftProtectionDomain pd,
        final ScatterGatherList sgList,
        final SoftMemoryRegion[] sgeRegion,
        final boolean writes)
    {
        for (int i = 0; i < sgList.numSge(); i++)
        {
            final ScatterGatherElement sge = sgList.sge(i);
            final SoftMemoryRegion region = device.localRegion(sge.lkey());
            if (region == null || region.pd() != pd || !region.contains(sge.addr(), sge.length()) ||
                (writes && (region.access() & Access.LOCAL_WRITE) == 0))
            {
                return false;
            }
            sgeRegion[i] = region;
        }
        return true;
    }

    /**
     * Copy {@code length} bytes into a checked receive slot, starting {@code toOffset} bytes into it.
     */
    public static void scatter(
        final MemorySegment src, final long srcOffset, final long length, final ReceiveSlot slot, final long toOffset)
    {
        copy(src, srcOffset, length, slot.sgList, slot.sgeRegion, toOffset, true);
    }

    /**
     * Copy {@code length} bytes of a send request's payload, starting {@code fromOffset} bytes into it.
     */
    public static void gather(
        final SendSlot slot, final long fromOffset, final MemorySegment dst, final long dstOffset, final long length)
    {
        if (slot.isInline)
        {
            MemorySegment.copy(slot.inlineData, fromOffset, dst, dstOffset, length);
            return;
        }
        copy(dst, dstOffset, length, slot.sgList, slot.sgeRegion, fromOffset, false);
    }

    /**
     * Copy {@code length} bytes into a send request's local buffers (READ and atomic results),
     * starting {@code toOffset} bytes into them.
     */
    public static void scatterIntoSend(
        final SendSlot slot, final long toOffset, final MemorySegment src, final long srcOffset, final long length)
    {
        copy(src, srcOffset, length, slot.sgList, slot.sgeRegion, toOffset, true);
    }

    /**
     * Store the word an atomic found in the request's one 8-byte local buffer, in network order.
     *
     * @throws IllegalStateException when the buffer's memory was released meanwhile.
     */
    public static void storeAtomicResult(final SendSlot slot, final long original)
    {
        final SoftMemoryRegion region = slot.sgeRegion[0];
        region.segment().set(BIG_ENDIAN_LONG_UNALIGNED, slot.sgList.sge(0).addr() - region.address(), original);
    }

    /**
     * Move {@code length} bytes between {@code other} and a scatter/gather list, starting
     * {@code skip} bytes into the list: into the list when {@code intoList}, out of it otherwise.
     */
    private static void copy(
        final MemorySegment other,
        final long otherOffset,
        final long length,
        final ScatterGatherList sgList,
        final SoftMemoryRegion[] sgeRegion,
        final long skip,
        final boolean intoList)
    {
        long toSkip = skip;
        long copied = 0;
        for (int i = 0; i < sgList.numSge() && copied < length; i++)
        {
            final ScatterGatherElement sge = sgList.sge(i);
            final long entryLength = sge.length();
            if (toSkip >= entryLength)
            {
                toSkip -= entryLength;
                continue;
            }
            final long chunk = Math.min(entryLength - toSkip, length - copied);
            final SoftMemoryRegion region = sgeRegion[i];
            final long listOffset = sge.addr() - region.address() + toSkip;
            if (intoList)
            {
                MemorySegment.copy(other, otherOffset + copied, region.segment(), listOffset, chunk);
            }
            else
            {
                MemorySegment.copy(region.segment(), listOffset, other, otherOffset + copied, chunk);
            }
            copied += chunk;
            toSkip = 0;
        }
    }
}

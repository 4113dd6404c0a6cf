package io.dkv.verbs.tcp;

import io.dkv.verbs.ScatterGatherElement;
import io.dkv.verbs.ScatterGatherList;
import io.dkv.verbs.soft.ReceiveSlot;
import io.dkv.verbs.soft.SendSlot;
import io.dkv.verbs.soft.SoftMemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * A list of memory ranges with a cursor, for moving a frame's payload in pieces as the socket
 * allows: gathered from a request's buffers into the transmit buffer, or scattered from the
 * receive buffer into registered memory. Preallocated; reused frame after frame.
 */
final class ScatterList
{
    private static final int MAX_ENTRIES = 17;

    private final MemorySegment[] segments = new MemorySegment[MAX_ENTRIES];
    private final long[] offsets = new long[MAX_ENTRIES];
    private final long[] lengths = new long[MAX_ENTRIES];
    private int count;
    private int entry;
    private long entryOffset;
    private long remaining;

    void clear()
    {
        for (int i = 0; i < count; i++)
        {
            segments[i] = null;
        }
        count = 0;
        entry = 0;
        entryOffset = 0;
        remaining = 0;
    }

    /** Nowhere: bytes copied in are dropped. */
    void discard(final long length)
    {
        clear();
        remaining = length;
    }

    void single(final MemorySegment segment, final long offset, final long length)
    {
        clear();
        add(segment, offset, length);
    }

    /** The local buffers of a send request (its payload, or where READ data lands). */
    void fromSend(final SendSlot slot, final long length)
    {
        clear();
        if (slot.isInline)
        {
            add(slot.inlineData, 0, length);
            return;
        }
        fromList(slot.sgList, slot.sgeRegion, length);
    }

    /** The buffers of a checked receive request. */
    void fromReceive(final ReceiveSlot slot, final long length)
    {
        clear();
        fromList(slot.sgList, slot.sgeRegion, length);
    }

    /** The first {@code length} bytes of a scatter/gather list whose elements resolved to {@code regions}. */
    private void fromList(final ScatterGatherList sgList, final SoftMemoryRegion[] regions, final long length)
    {
        long left = length;
        for (int i = 0; i < sgList.numSge() && left > 0; i++)
        {
            final ScatterGatherElement sge = sgList.sge(i);
            final SoftMemoryRegion region = regions[i];
            final long chunk = Math.min(left, sge.length());
            add(region.segment(), sge.addr() - region.address(), chunk);
            left -= chunk;
        }
    }

    private void add(final MemorySegment segment, final long offset, final long length)
    {
        if (length == 0)
        {
            return;
        }
        segments[count] = segment;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
        remaining += length;
    }

    long remaining()
    {
        return remaining;
    }

    /**
     * Copy {@code length} bytes from {@code src} into the list at its cursor (or drop them when
     * discarding), advancing the cursor.
     */
    void scatterFrom(final MemorySegment src, final long srcOffset, final long length)
    {
        long done = 0;
        while (done < length)
        {
            if (count == 0)
            {
                remaining -= length - done;
                return;
            }
            final long chunk = Math.min(lengths[entry] - entryOffset, length - done);
            MemorySegment.copy(src, srcOffset + done, segments[entry], offsets[entry] + entryOffset, chunk);
            advance(chunk);
            done += chunk;
        }
    }

    /**
     * Copy {@code length} bytes from the list at its cursor into {@code dst}, advancing the cursor.
     */
    void gatherInto(final MemorySegment dst, final long dstOffset, final long length)
    {
        long done = 0;
        while (done < length)
        {
            final long chunk = Math.min(lengths[entry] - entryOffset, length - done);
            MemorySegment.copy(segments[entry], offsets[entry] + entryOffset, dst, dstOffset + done, chunk);
            advance(chunk);
            done += chunk;
        }
    }

    private void advance(final long chunk)
    {
        entryOffset += chunk;
        remaining -= chunk;
        if (entryOffset == lengths[entry])
        {
            segments[entry] = null;
            entry++;
            entryOffset = 0;
        }
    }
}

package io.dkv.raas.cnc;

import io.dkv.raas.RaasException;

import java.lang.foreign.MemorySegment;
import java.util.TreeMap;

/**
 * A client's data area, which the driver registered once: each request slot's chunk for small
 * transfers, then blocks for buffers handed to the application and for large transfers, allocated
 * first fit over a sorted free list, 64-byte aligned. Blocks are allocated on control paths and for
 * large transfers only.
 */
final class ClientDataArea
{
    /** Bytes of each request slot's chunk: transfers up to this size need no allocation. */
    static final int CHUNK_BYTES = 256;

    private final MemorySegment data;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();

    /**
     * @param data   the whole area.
     * @param chunks bytes at its start that are the request slots' chunks.
     */
    ClientDataArea(final MemorySegment data, final long chunks)
    {
        this.data = data;
        if (data.byteSize() - chunks > 0)
        {
            free.put(chunks, data.byteSize() - chunks);
        }
    }

    /** @return the whole area, to copy into and out of at a data offset. */
    MemorySegment memory()
    {
        return data;
    }

    /** @return true when the segment's bytes from the offset are this area's at the data offset. */
    boolean isInPlace(final MemorySegment segment, final long segmentOffset, final long dataOffset)
    {
        return segment.isNative() && segment.address() + segmentOffset == data.address() + dataOffset;
    }

    /**
     * Where a transfer of {@code length} bytes from or into {@code segment} lives in the data area:
     * the segment itself when it is a buffer from {@link #allocateBuffer} (no copy), the slot's chunk
     * when small, else a block allocated for the request, which the slot holds until released.
     *
     * @return the data-area offset; {@code slot.copyBack} is left for the caller to set.
     */
    long place(final ClientSlot slot, final MemorySegment segment, final long segmentOffset, final int length)
    {
        if (segment != null && segment.isNative())
        {
            final long address = segment.address() + segmentOffset;
            if (address >= data.address() && address - data.address() <= data.byteSize() - length)
            {
                return address - data.address();
            }
        }
        if (length <= CHUNK_BYTES)
        {
            return slot.chunkOffset;
        }
        final long block = allocate(length);
        if (block < 0)
        {
            throw new RaasException("the client data area of " + data.byteSize() + " bytes has no room for " + length +
                " more bytes (dkv.raas.client.data.bytes)");
        }
        slot.block = block;
        return block;
    }

    /** @return a buffer of the area for the application: its transfers need no copy. */
    MemorySegment allocateBuffer(final int size)
    {
        final long block = allocate(size);
        if (block < 0)
        {
            throw new RaasException("the client data area of " + data.byteSize() + " bytes has no room for a " + size +
                "-byte buffer (dkv.raas.client.data.bytes)");
        }
        return data.asSlice(block, size);
    }

    /**
     * @return the offset of {@code length} bytes, or -1 when no block is large enough.
     */
    synchronized long allocate(final long length)
    {
        final long size = (Math.max(1, length) + 63) & ~63L;
        for (final var entry : free.entrySet())
        {
            if (entry.getValue() >= size)
            {
                final long offset = entry.getKey();
                final long remaining = entry.getValue() - size;
                free.remove(offset);
                if (remaining > 0)
                {
                    free.put(offset + size, remaining);
                }
                used.put(offset, size);
                return offset;
            }
        }
        return -1;
    }

    synchronized void release(final long offset)
    {
        final Long size = used.remove(offset);
        if (size == null)
        {
            throw new RaasException("data area offset " + offset + " is not an allocated block");
        }
        long start = offset;
        long length = size;
        final var before = free.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start)
        {
            start = before.getKey();
            length += before.getValue();
            free.remove(before.getKey());
        }
        final Long after = free.get(offset + size);
        if (after != null)
        {
            free.remove(offset + size);
            length += after;
        }
        free.put(start, length);
    }

    synchronized boolean isAllocated(final long offset)
    {
        return used.containsKey(offset);
    }
}

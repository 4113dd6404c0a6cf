package io.dkv.memory;

import io.dkv.client.layout.HeapLayout;

/**
 * Hands out the heap in chunks of the sizes clients ask for, in order, each to one client (blocks
 * are not reclaimed yet, so the heap only fills). One caller: the chunk server.
 */
final class ChunkAllocator
{
    private final int maxChunkLength;
    private final long heapLength;
    private long next = HeapLayout.HEADER_LENGTH;
    /** Written by the chunk server only; read by anyone who asks how many went out. */
    private volatile int allocated;

    ChunkAllocator(final int maxChunkLength, final long heapLength)
    {
        this.maxChunkLength = maxChunkLength;
        this.heapLength = heapLength;
    }

    /**
     * @param length bytes wanted: a multiple of 64, at least 64, at most the largest chunk.
     * @return the offset of a chunk no one else was given, or -1 when the heap has no room for it.
     */
    long allocate(final int length)
    {
        if (next + length > heapLength)
        {
            return -1;
        }
        final long offset = next;
        next += length;
        allocated = allocated + 1;
        return offset;
    }

    boolean isValidLength(final int length)
    {
        return length >= 64 && (length & 63) == 0;
    }

    int maxChunkLength()
    {
        return maxChunkLength;
    }

    long heapLength()
    {
        return heapLength;
    }

    long used()
    {
        return next;
    }

    int allocated()
    {
        return allocated;
    }
}

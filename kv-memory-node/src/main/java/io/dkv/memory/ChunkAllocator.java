package io.dkv.memory;

import io.dkv.client.layout.HeapLayout;

/**
 * Hands out the heap's chunks in order, each to one client. One caller: the chunk server.
 */
final class ChunkAllocator
{
    private final int chunkLength;
    private final int capacity;
    /** Written by the chunk server only; read by anyone who asks how many went out. */
    private volatile int next;

    ChunkAllocator(final int chunkLength, final int capacity)
    {
        this.chunkLength = chunkLength;
        this.capacity = capacity;
    }

    /** @return the offset of a chunk no one else was given, or -1 when none is left. */
    long allocate()
    {
        if (next == capacity)
        {
            return -1;
        }
        final int chunk = next;
        next = chunk + 1;
        return HeapLayout.chunkOffset(chunk, chunkLength);
    }

    int chunkLength()
    {
        return chunkLength;
    }

    int capacity()
    {
        return capacity;
    }

    int allocated()
    {
        return next;
    }
}

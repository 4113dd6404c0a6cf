package io.dkv.raas.cnc;

import io.dkv.raas.RaasException;

import java.util.TreeMap;

/**
 * Allocation of a client's data area beyond the per-request chunks: buffers handed to the
 * application and room for large transfers. First fit over a sorted free list; blocks are
 * 64-byte aligned. Called on control paths and for large transfers only.
 */
final class ClientDataArea
{
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();

    ClientDataArea(final long start, final long length)
    {
        if (length > 0)
        {
            free.put(start, length);
        }
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

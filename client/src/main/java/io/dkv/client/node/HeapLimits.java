package io.dkv.client.node;

import io.dkv.format.HeapLayout;

import java.util.List;

/**
 * The pool's maxmemory as the memory nodes' heap limits hold it: each node hands out at most its share, in proportion
 * to its capacity, so that the pool hands out at most maxmemory (redis's used_memory against maxmemory, with the
 * heaps' bytes handed out as used_memory). The limits live on the nodes alone: any client reads the setting from their
 * headers, and a node that comes without one (started, restarted or joined since) is given its share of the setting
 * the others hold.
 */
public final class HeapLimits
{
    private HeapLimits()
    {
    }

    /**
     * @return the pool's maxmemory as the heaps tell it: the limits of the nodes that have one, over the share of the
     * pool's capacity those nodes hold (so a node without one yet does not lower it); 0 when no node has one.
     */
    public static long maxMemory(final List<MemoryNodeHeap> heaps)
    {
        long limits = 0;
        long limitedCapacity = 0;
        long capacity = 0;
        for (final MemoryNodeHeap heap : heaps)
        {
            if (!heap.told())
            {
                continue;
            }
            capacity += heap.capacity();
            if (heap.limited())
            {
                limits += heap.limit();
                limitedCapacity += heap.capacity();
            }
        }
        if (limitedCapacity == 0)
        {
            return 0;
        }
        return limitedCapacity == capacity ? limits : (long)((double)limits * capacity / limitedCapacity);
    }

    /**
     * @param maxMemory the pool's maxmemory in bytes; 0: none.
     * @return each node's limit, in the order of {@code heaps}: its share of {@code maxMemory} by capacity, a multiple
     * of 64 and at least 64; {@link HeapLayout#LIMIT_NONE} for each when there is none; and for a node that does not
     * tell its capacity (unreachable, or of an older build), {@link HeapLayout#LIMIT_NEVER_SET}: nothing to send it.
     */
    public static long[] shares(final List<MemoryNodeHeap> heaps, final long maxMemory)
    {
        long capacity = 0;
        for (final MemoryNodeHeap heap : heaps)
        {
            capacity += heap.told() ? heap.capacity() : 0;
        }
        final long[] shares = new long[heaps.size()];
        for (int i = 0; i < shares.length; i++)
        {
            final MemoryNodeHeap heap = heaps.get(i);
            if (!heap.told())
            {
                shares[i] = HeapLayout.LIMIT_NEVER_SET;
            }
            else if (maxMemory <= 0)
            {
                shares[i] = HeapLayout.LIMIT_NONE;
            }
            else
            {
                final double share = (double)maxMemory * heap.capacity() / capacity;
                shares[i] = Math.max(64, (long)share & ~63L);
            }
        }
        return shares;
    }
}

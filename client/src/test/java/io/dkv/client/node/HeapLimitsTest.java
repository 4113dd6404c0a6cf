package io.dkv.client.node;

import io.dkv.format.HeapLayout;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class HeapLimitsTest
{
    private static final long MIB = 1 << 20;

    @Test
    void sharesFollowCapacityInWholeSixtyFourBytesAndUnreadNodesGetNone()
    {
        final List<MemoryNodeHeap> heaps = List.of(heap(1, 100 * MIB, 0), heap(2, 300 * MIB, 0),
            MemoryNodeHeap.unreachable(3));
        assertArrayEquals(new long[] {10 * MIB, 30 * MIB, HeapLayout.LIMIT_NEVER_SET}, HeapLimits.shares(heaps,
            40 * MIB));
        assertArrayEquals(new long[] {64, 192, HeapLayout.LIMIT_NEVER_SET}, HeapLimits.shares(heaps, 257),
            "rounded down to 64 bytes, never below 64");
        assertArrayEquals(new long[] {HeapLayout.LIMIT_NONE, HeapLayout.LIMIT_NONE, HeapLayout.LIMIT_NEVER_SET},
            HeapLimits.shares(heaps, 0), "0: none, on every node read");
    }

    @Test
    void thePoolsMaxmemoryIsTheLimitsOverTheCapacityTheyCover()
    {
        assertEquals(0, HeapLimits.maxMemory(List.of(heap(1, MIB, 0), heap(2, MIB, HeapLayout.LIMIT_NONE))));
        assertEquals(40 * MIB, HeapLimits.maxMemory(List.of(heap(1, 100 * MIB, 10 * MIB),
            heap(2, 300 * MIB, 30 * MIB))));
        assertEquals(40 * MIB, HeapLimits.maxMemory(List.of(heap(1, 100 * MIB, 10 * MIB),
            heap(2, 300 * MIB, HeapLayout.LIMIT_NEVER_SET), MemoryNodeHeap.unreachable(3))),
            "a node not limited yet (restarted, joined) counts at the share of the others");
    }

    private static MemoryNodeHeap heap(final long nodeId, final long capacity, final long limit)
    {
        return new MemoryNodeHeap(nodeId, true, capacity, 0, 0, 0, 0, 0, 0, limit);
    }
}

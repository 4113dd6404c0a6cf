package io.dkv.client.node;

import io.dkv.format.HeapLayout;

/**
 * A memory node's heap as its header last showed it ({@link HeapLayout}: capacity, handedOut, live, reserve, room,
 * pinned, walkedAt), read by a client: what a compute node's INFO memory and /metrics report of the pool.
 *
 * @param nodeId          the memory node.
 * @param reachable       false when its header could not be read (the rest is then zero).
 * @param capacity        bytes its chunks are cut from; 0 when the node does not tell (an older build).
 * @param handedOut       bytes of chunks handed out and not free again: being written, retired, in their grace.
 * @param live            bytes of the blocks its index named at its last walk of it.
 * @param reserve         bytes kept for writes that free memory (deletes' tombstones and their intents).
 * @param room            bytes writes other than frees may still take.
 * @param pinned          retired chunks a live block still held at that walk.
 * @param walkedAtEpochMs when that walk ended (to the second), 0 before the first.
 * @param limit           bytes it hands out at most to writes other than frees (its share of the pool's
 *                        maxmemory), {@link HeapLayout#LIMIT_NONE} or {@link HeapLayout#LIMIT_NEVER_SET}.
 */
public record MemoryNodeHeap(long nodeId, boolean reachable, long capacity, long handedOut, long live, long reserve,
    long room, int pinned, long walkedAtEpochMs, long limit)
{
    /** @return the state of an unreachable node. */
    public static MemoryNodeHeap unreachable(final long nodeId)
    {
        return new MemoryNodeHeap(nodeId, false, 0, 0, 0, 0, 0, 0, 0, HeapLayout.LIMIT_NEVER_SET);
    }

    /** @return the node has a limit (a share of the pool's maxmemory). */
    public boolean limited()
    {
        return limit > 0;
    }

    /** @return the node tells what its heap holds (reachable, and of a build that writes it). */
    public boolean told()
    {
        return reachable && capacity > 0;
    }
}

package io.dkv.client;

/**
 * A write could not be placed: its memory node has no room left for it outside the reserve it keeps for deletes (or,
 * for a delete, inside it either). Nothing of the write was published. Redis users know it as {@code -OOM}; deletes
 * free room once the node takes their values' blocks back. An answer, not a fault: it carries no stack trace, which
 * would cost each refused write more than the refusal.
 */
public final class MemoryFullException extends KvException
{
    private final long nodeId;
    private final int wanted;
    private final long room;
    private final long reserve;

    /**
     * @param wanted  bytes the write asked for.
     * @param room    bytes the node may still hand out, its reserve included.
     * @param reserve bytes of its reserve, which only writes that free memory are given.
     */
    public MemoryFullException(final long nodeId, final int wanted, final long room, final long reserve,
        final boolean freeing)
    {
        super("memory node " + nodeId + " is full: no room left in its heap for " + wanted + " more bytes of " +
            (freeing ? "a delete, its reserve for deletes (" + reserve + " bytes) spent too" :
            "values (" + room + " bytes left in pieces, " + reserve + " of them kept for deletes)"), false);
        this.nodeId = nodeId;
        this.wanted = wanted;
        this.room = room;
        this.reserve = reserve;
    }

    public long nodeId()
    {
        return nodeId;
    }

    public int wanted()
    {
        return wanted;
    }

    public long room()
    {
        return room;
    }

    public long reserve()
    {
        return reserve;
    }

    /** @return the first memory-full failure in {@code failure} or its causes, or null. */
    public static MemoryFullException in(final Throwable failure)
    {
        int depth = 0;
        for (Throwable cause = failure; cause != null && depth < 16; cause = cause.getCause(), depth++)
        {
            if (cause instanceof MemoryFullException full)
            {
                return full;
            }
        }
        return null;
    }
}

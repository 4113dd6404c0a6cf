package io.dkv.client.node;

import io.dkv.client.KvException;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.raas.Connection;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;

/**
 * One round of one-sided requests to any of a thread's memory nodes ({@link NodeLinks}): posted one by one, sent in
 * one doorbell batch a node, and awaited together. The CAS of a round keep what they found ({@link #found}); a
 * failure of any request fails the round and makes each of its nodes read again at its next use. Offsets are the
 * caller's, from the nodes' views as they are: a node's view is made again only when its last request failed.
 */
public final class NodeRound
{
    private final NodeLinks links;
    private final int[] nodes = new int[MemoryNodeAvailability.CAPACITY];
    private int nodeCount;
    private int posted;
    private long token;

    public NodeRound(final NodeLinks links)
    {
        this.links = links;
    }

    /** Begin a round: what an earlier one posted and did not await counts for nothing. */
    public void start()
    {
        nodeCount = 0;
        posted = 0;
        token = links.startRequests();
    }

    /** READ {@code length} bytes of the node's index ({@code heap} false) or heap into {@code dst}. */
    public void read(final int node, final boolean heap, final long offset, final MemorySegment dst,
        final long dstOffset, final int length)
    {
        final Connection connection = connection(node);
        try
        {
            connection.readAsync(region(node, heap), offset, dst, dstOffset, length, token);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        posted++;
    }

    /** WRITE {@code length} bytes of {@code src} into the node's heap. */
    public void writeHeap(final int node, final long offset, final MemorySegment src, final long srcOffset,
        final int length)
    {
        final Connection connection = connection(node);
        try
        {
            connection.writeAsync(links.view(node).heap, offset, src, srcOffset, length, token);
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        posted++;
    }

    /**
     * CAS a slot of the node's index from {@code expected} to {@code desired}; what it found is {@link #found}
     * ({@code tracked}) once the round is awaited.
     */
    public void cas(final int node, final long slot, final long expected, final long desired, final int tracked)
    {
        final Connection connection = connection(node);
        try
        {
            connection.casAsync(links.view(node).index, slot, expected, desired, NodeLinks.tracked(token, tracked));
        }
        catch (final RaasException ex)
        {
            throw links.unreachable(node, ex);
        }
        posted++;
    }

    /** Send what was posted and wait for all of it: a failure makes every node of the round read again. */
    public void await()
    {
        if (posted == 0)
        {
            return;
        }
        for (int n = 0; n < nodeCount; n++)
        {
            try
            {
                links.connection(nodes[n]).flush();
            }
            catch (final RaasException ex)
            {
                throw links.unreachable(nodes[n], ex);
            }
        }
        links.awaitRound(nodes, nodeCount, posted);
    }

    /** @return the word the round's CAS numbered {@code tracked} found: {@code expected} when it swapped. */
    public long found(final int tracked)
    {
        return links.trackedValue(tracked);
    }

    /** @return the node's connection, the node counted in the round (its view made again first when stale). */
    private Connection connection(final int node)
    {
        for (int n = 0; n < nodeCount; n++)
        {
            if (nodes[n] == node)
            {
                return links.connection(node);
            }
        }
        if (nodeCount == nodes.length)
        {
            throw new KvException("a round of requests to more than " + nodes.length + " memory nodes");
        }
        nodes[nodeCount++] = links.use(node);
        return links.connection(node);
    }

    private RemoteRegion region(final int node, final boolean heap)
    {
        return heap ? links.view(node).heap : links.view(node).index;
    }
}

package io.dkv.client;

import io.dkv.client.index.IndexListing;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.MemoryNodeDisk;

import java.util.Arrays;

/**
 * The cluster's durable epoch D as this client sees it (kv-memory-node/README.md, "Async across nodes"): the least
 * durable epoch the members that keep a disk published, which it raises each of them to for their version sweeps.
 * A member that cannot be read counts with the greatest epoch it was read at (a node keeps at least what it
 * published, and one back from its directory publishes what it kept); one never read, by this client, holds D back
 * until it is. A node that keeps nothing on disk is never the source of a key's recovery and does not count. Any D
 * at most the least kept works for dropping, so a D from a view a little behind is only less than it could be, as
 * long as the view lists every member (a member added since is read at the next membership refresh). Run by the
 * client's marks thread, once a second; its one user.
 */
final class ClusterDurableEpoch
{
    private static final long UNKNOWN = -1;

    /** Per node index: the greatest durable epoch read, UNKNOWN before the first read. */
    private final long[] read = new long[MemoryNodeAvailability.CAPACITY];
    /** Per node index: the cluster's durable epoch its header held when last read. */
    private final long[] raised = new long[MemoryNodeAvailability.CAPACITY];
    /** Per node index: whether its last read said it keeps nothing on disk. */
    private final boolean[] withoutDisk = new boolean[MemoryNodeAvailability.CAPACITY];
    private long published = UNKNOWN;

    ClusterDurableEpoch()
    {
        Arrays.fill(read, UNKNOWN);
    }

    /**
     * Read each member's durable epoch, and write the least into each that keeps a disk.
     *
     * @return D written, or -1 when some member that may keep a disk was never read.
     */
    long publish(final IndexListing listing, final MembershipView.Placement placement)
    {
        final int nodes = Math.min(placement.nodeCount(), read.length);
        long least = Long.MAX_VALUE;
        for (int node = 0; node < nodes; node++)
        {
            if (placement.placement(node) == 0)
            {
                // not a member: its disk is no one's source
                continue;
            }
            final MemoryNodeDisk disk = listing.diskOf(node);
            if (disk.reachable())
            {
                withoutDisk[node] = !disk.persistent();
                if (disk.persistent())
                {
                    read[node] = Math.max(read[node], disk.durableEpoch());
                    raised[node] = disk.clusterDurableEpoch();
                }
            }
            if (withoutDisk[node])
            {
                continue;
            }
            if (read[node] == UNKNOWN)
            {
                return UNKNOWN;
            }
            least = Math.min(least, read[node]);
        }
        if (least == Long.MAX_VALUE)
        {
            return UNKNOWN;
        }
        for (int node = 0; node < nodes; node++)
        {
            if (placement.placement(node) != 0 && !withoutDisk[node])
            {
                try
                {
                    listing.raiseClusterDurableEpoch(node, raised[node], least);
                }
                catch (final KvException ex)
                {
                    // not reachable now: it reads a later one
                }
            }
        }
        published = least;
        return least;
    }

    /** @return the last D written, or -1 when none was. */
    long published()
    {
        return published;
    }
}

package io.dkv.client.node;

import io.dkv.format.IndexLayout;

/**
 * A memory node's disk as its index header last showed it ({@link IndexLayout}: fsyncState, lastFsyncAt,
 * unsyncedSince, durableEpoch, clusterDurable), read by a client: what a compute node's INFO persistence reports of
 * the pool.
 *
 * @param nodeId               the memory node.
 * @param reachable            false when its header could not be read (the rest is then zero).
 * @param persistent           it keeps keys on disk (started with a data directory).
 * @param lastFsyncEpochMs     when its last fsync of its key store ended, 0 for none yet.
 * @param lastFsyncOk          false when that fsync failed, or the disk refuses writes now (full): what was written
 *                             since may not be on disk; the node holds it in memory and tries again.
 * @param unsyncedSinceEpochMs when the oldest write to its disk not fsynced yet was made, 0 for none.
 * @param lagP99Ms             the p99 of how long the oldest write each fsync covered had waited for it.
 * @param durableEpoch         the epoch through which every write its clients told it of is on its disk
 *                             (kv-memory-node/README.md, "Async across nodes").
 * @param clusterDurableEpoch  the cluster's durable epoch as clients last raised it there, 0 for none yet.
 * @param restoredDurableEpoch the durable epoch its disk kept when this incarnation loaded its keys and versions from
 *                             it, 0 when it started without: it then takes no part in choosing the epoch a pool that
 *                             lost every copy comes back at (kv-memory-node/README.md, "Coming back").
 * @param restoredClusterDurableEpoch the cluster's durable epoch its disk kept then.
 * @param rolledBackTo         the epoch its keys were rolled back to in this incarnation, 0 while they were not.
 * @param incarnation          the incarnation whose header this is, 0 when unreachable: one the membership lists as
 *                             another (it restarted since, or is about to) says nothing of the disk now.
 */
public record MemoryNodeDisk(long nodeId, boolean reachable, boolean persistent, long lastFsyncEpochMs,
    boolean lastFsyncOk, long unsyncedSinceEpochMs, int lagP99Ms, long durableEpoch, long clusterDurableEpoch,
    long restoredDurableEpoch, long restoredClusterDurableEpoch, long rolledBackTo, long incarnation)
{
    /** @return the state of an unreachable node. */
    public static MemoryNodeDisk unreachable(final long nodeId)
    {
        return new MemoryNodeDisk(nodeId, false, false, 0, true, 0, 0, 0, 0, 0, 0, 0, 0);
    }
}

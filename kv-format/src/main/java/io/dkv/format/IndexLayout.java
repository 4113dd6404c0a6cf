package io.dkv.format;

/**
 * The hash index a memory node keeps in one registered region, read and updated by clients with
 * one-sided READ and CAS (RACE hashing: extendible hashing whose directory points at subtables of
 * bucket groups). Words are big-endian, as the RDMA atomics that update them see them.
 *
 * <pre>
 * region
 *   0  magic              long   "DKVINDX1"
 *   8  layoutVersion      int    of the index, its slots and the blocks they point at (3: blocks carry an epoch)
 *  12  groupsPerSubtable  int    bucket groups in each subtable (a power of two)
 *  16  subtables          int    subtables in use
 *  20  globalDepth        int    low bits of a key's hash that pick its directory entry
 *  24  maxGlobalDepth     int    the directory holds 2^maxGlobalDepth entries
 *  28  flags              int    PERSISTENT: the node writes keys to disk when asked (durability async, sync);
 *                                KEEPS_VERSIONS: it keeps key versions by epoch, and a delete under async publishes
 *                                a tombstone there, of its own epoch
 *  32  graceMs            int    a block is reused no sooner than this after no slot points at it: an
 *                                operation that takes longer must fail rather than return what it read
 *  36  fsyncState         int    bit 31: the node's last fsync of its key store failed; bits 0-30: the p99 of
 *                                how long the oldest write each fsync covered had waited for it (ms)
 *  40  directoryVersion   long   odd while the node changes the directory: a reader reads it before and after
 *  48  lastFsyncAt        long   when the node's last fsync of its key store ended (epoch ms), 0: none yet
 *  56  unsyncedSince      long   when the oldest write to its disk not fsynced yet was made (epoch ms), 0: none
 *  64  durableEpoch       long   every write of an epoch up to it that this node was told of is on its disk, kept
 *                                (kv-memory-node/README.md, "Async across nodes")
 *  72  clusterDurable     long   the cluster's durable epoch D as a client last computed it (the least the members
 *                                published, kv-memory-node/README.md): written by clients, read by the node, which
 *                                keeps the greatest it read and drops versions a newer one at or below D stands for
 *  80  restoredDurable    long   the durable epoch the node's disk kept when this incarnation loaded its keys and
 *                                versions from it, 0 when it started without (it then takes no part in choosing
 *                                the epoch a whole pool lost comes back at: kv-memory-node/README.md, "Coming back")
 *  88  restoredCluster    long   the cluster's durable epoch D that disk kept then (0: none)
 *  96  rolledBackTo       long   the epoch the node's keys were rolled back to in this incarnation, 0 while not
 * 104  reserved           24 bytes
 * 128  directory          2^maxGlobalDepth entries of 8 bytes: localDepth (8 bits) | subtable offset (56 bits)
 *  ..  subtables          each groupsPerSubtable x 192 bytes, 64-byte aligned
 *
 * bucket group (192 bytes): two main buckets share the overflow bucket between them, so that each
 * combined bucket (main + overflow) is 128 contiguous bytes, read by one READ
 *   0  main bucket 0      64 B    combined bucket 0 = bytes 0..127
 *  64  overflow bucket    64 B
 * 128  main bucket 1      64 B    combined bucket 1 = bytes 64..191
 *
 * bucket (64 bytes)
 *   0  header             long   locked (1 bit) | localDepth (7 bits) | suffix (56 bits): the hashes whose low
 *                                localDepth bits are the suffix live here; locked while its subtable splits
 *   8  7 slots            long each, see {@link SlotWord}
 * </pre>
 *
 * A key has two candidate combined buckets (two hash functions, at the same places in every
 * subtable); its slot is in one of them, in the subtable the directory entry of its hash's low
 * globalDepth bits points at. A subtable of local depth d splits in two of depth d + 1: the node
 * locks its buckets, moves the slots of keys whose hash has bit d set to the same places in a new
 * subtable, points the directory at both, and unlocks the buckets with their new depth and suffix.
 * A client whose directory is older finds a bucket header that does not hold its hash, and reads
 * the directory again.
 */
public final class IndexLayout
{
    public static final long MAGIC = 0x31584e4449564b44L;
    public static final int LAYOUT_VERSION = 3;

    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = 8;
    public static final int GROUPS_PER_SUBTABLE_OFFSET = 12;
    public static final int SUBTABLES_OFFSET = 16;
    public static final int GLOBAL_DEPTH_OFFSET = 20;
    public static final int MAX_GLOBAL_DEPTH_OFFSET = 24;
    public static final int FLAGS_OFFSET = 28;
    public static final int FLAG_PERSISTENT = 1;
    public static final int FLAG_KEEPS_VERSIONS = 2;
    public static final int GRACE_MS_OFFSET = 32;
    public static final int DIRECTORY_VERSION_OFFSET = 40;
    /** The node's disk as it last wrote it (durability async's lag, read by a compute node's INFO persistence). */
    public static final int FSYNC_STATE_OFFSET = 36;
    public static final int FSYNC_FAILED = 1 << 31;
    public static final int LAST_FSYNC_AT_OFFSET = 48;
    public static final int UNSYNCED_SINCE_OFFSET = 56;
    public static final int DURABLE_EPOCH_OFFSET = 64;
    public static final int CLUSTER_DURABLE_EPOCH_OFFSET = 72;
    public static final int RESTORED_DURABLE_EPOCH_OFFSET = 80;
    public static final int RESTORED_CLUSTER_DURABLE_EPOCH_OFFSET = 88;
    public static final int ROLLED_BACK_TO_OFFSET = 96;
    public static final long BUCKET_LOCKED = 1L << 63;
    private static final long SUFFIX_MASK = (1L << 56) - 1;
    public static final int HEADER_LENGTH = 128;
    public static final int DIRECTORY_OFFSET = HEADER_LENGTH;
    public static final int DIRECTORY_ENTRY_LENGTH = 8;

    public static final int BUCKET_LENGTH = 64;
    public static final int BUCKET_HEADER_LENGTH = 8;
    public static final int SLOTS_PER_BUCKET = 7;
    public static final int SLOT_LENGTH = 8;
    public static final int GROUP_LENGTH = 3 * BUCKET_LENGTH;
    public static final int COMBINED_BUCKET_LENGTH = 2 * BUCKET_LENGTH;
    public static final int SLOTS_PER_COMBINED_BUCKET = 2 * SLOTS_PER_BUCKET;
    public static final int MAX_GLOBAL_DEPTH = 16;

    private IndexLayout()
    {
    }

    public static long directoryLength(final int maxGlobalDepth)
    {
        return (long)DIRECTORY_ENTRY_LENGTH << maxGlobalDepth;
    }

    /** @return where the subtables start: after the directory, 64-byte aligned. */
    public static long subtablesOffset(final int maxGlobalDepth)
    {
        return (DIRECTORY_OFFSET + directoryLength(maxGlobalDepth) + 63) & ~63L;
    }

    public static long subtableLength(final int groupsPerSubtable)
    {
        return (long)groupsPerSubtable * GROUP_LENGTH;
    }

    /** @return bytes of an index region with room for {@code subtables} subtables. */
    public static long regionLength(final int maxGlobalDepth, final int groupsPerSubtable, final int subtables)
    {
        return subtablesOffset(maxGlobalDepth) + subtables * subtableLength(groupsPerSubtable);
    }

    /** @return a bucket header: unlocked, for the hashes whose low {@code localDepth} bits are {@code suffix}. */
    public static long bucketHeader(final int localDepth, final long suffix)
    {
        return ((long)localDepth << 56) | (suffix & SUFFIX_MASK);
    }

    public static boolean isLocked(final long bucketHeader)
    {
        return (bucketHeader & BUCKET_LOCKED) != 0;
    }

    public static int bucketLocalDepth(final long bucketHeader)
    {
        return (int)((bucketHeader >>> 56) & 0x7f);
    }

    /** @return true when the bucket holds keys of this hash (its subtable is theirs). */
    public static boolean holds(final long bucketHeader, final long hash)
    {
        final int depth = bucketLocalDepth(bucketHeader);
        return (hash & ((1L << depth) - 1)) == (bucketHeader & SUFFIX_MASK);
    }

    public static long directoryEntry(final int localDepth, final long subtableOffset)
    {
        return ((long)localDepth << 56) | subtableOffset;
    }

    public static int localDepth(final long directoryEntry)
    {
        return (int)(directoryEntry >>> 56);
    }

    public static long subtableOffset(final long directoryEntry)
    {
        return directoryEntry & 0x00ff_ffff_ffff_ffffL;
    }

    /**
     * @param side 0 or 1: which main bucket of the group.
     * @return the offset of a combined bucket within its subtable.
     */
    public static long combinedBucketOffset(final int group, final int side)
    {
        return (long)group * GROUP_LENGTH + (long)side * BUCKET_LENGTH;
    }

    /**
     * @param index 0..13 within a combined bucket read whole.
     * @return the slot's offset within the combined bucket (skipping the buckets' headers).
     */
    public static int slotOffsetInCombined(final int index)
    {
        final int bucket = index / SLOTS_PER_BUCKET;
        return bucket * BUCKET_LENGTH + BUCKET_HEADER_LENGTH + (index % SLOTS_PER_BUCKET) * SLOT_LENGTH;
    }
}

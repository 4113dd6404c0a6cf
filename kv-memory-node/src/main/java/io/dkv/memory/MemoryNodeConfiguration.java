package io.dkv.memory;

/**
 * Settings of a memory node: system property names and defaults.
 */
public final class MemoryNodeConfiguration
{
    /** Bucket groups per subtable (a power of two); each holds 21 slots in 192 bytes. */
    public static final String INDEX_GROUPS_PROP_NAME = "dkv.memory.index.groups";
    public static final int INDEX_GROUPS_DEFAULT = 1 << 14;

    /**
     * How many times the index may double by splitting subtables: its region is sized (sparse) for
     * 2^depth subtables of the configured groups.
     */
    public static final String MAX_GLOBAL_DEPTH_PROP_NAME = "dkv.memory.index.max.depth";
    public static final int MAX_GLOBAL_DEPTH_DEFAULT = 6;

    /**
     * Bytes of the largest heap chunk a client is given to write its blocks into (its first chunks are
     * smaller); the largest block (64 KiB key, 1 MiB value) must fit.
     */
    public static final String CHUNK_BYTES_PROP_NAME = "dkv.memory.chunk.bytes";
    public static final int CHUNK_BYTES_DEFAULT = 2 << 20;

    /** Size of the heap in largest chunks. */
    public static final String HEAP_CHUNKS_PROP_NAME = "dkv.memory.heap.chunks";
    public static final int HEAP_CHUNKS_DEFAULT = 128;

    /**
     * Share of the heap, in 1/1024ths, kept for writes that free memory: the tombstones of deletes (DEL, UNLINK,
     * FLUSHALL, a key's expiry) and their transactions' intents. Chunks for other writes are refused once only the
     * reserve is left, so that a full node still takes its deletes. 32: about 3% (1 MiB of a 32 MiB heap, some 16,000
     * tombstones of short keys).
     */
    public static final String RESERVE_SHARE_PROP_NAME = "dkv.memory.reserve.share";
    public static final int RESERVE_SHARE_DEFAULT = 32;

    /**
     * How long a heap chunk no slot points into waits before it is handed out again: longer than any
     * client's operation may last, so that no reader returns a block written over meanwhile.
     */
    public static final String GRACE_MS_PROP_NAME = "dkv.memory.grace.ms";
    public static final int GRACE_MS_DEFAULT = 10_000;

    /**
     * How often the node walks its index for keys whose expiry has passed and empties their slots, so
     * that a key that expired and is never read again gives its block back (clients that read one
     * empty its slot themselves).
     */
    public static final String EXPIRY_SCAN_MS_PROP_NAME = "dkv.memory.expiry.scan.ms";
    public static final int EXPIRY_SCAN_MS_DEFAULT = 1_000;

    /**
     * How often the node passes over the key versions it keeps on disk to drop those the cluster's durable epoch has
     * passed (a pass only when that epoch moved since the last): the versions of about this long stay on disk beyond
     * the second or so a recovery may go back.
     */
    public static final String VERSION_SWEEP_MS_PROP_NAME = "dkv.memory.version.sweep.ms";

    /**
     * Whether the node keeps each key's versions by epoch beside its row (kv-memory-node/README.md, "Async across
     * nodes"): what a pool that lost every member reads to come back at one cut, so that no transaction comes back
     * in part. On by default: off, a crash of every member under everysec can bring a transaction back in part. A
     * version is a record of the node's version log a notice, written and forced with the key store's writes
     * (docs/BENCHMARKS.md, "Issue 66, part 6 with a log of versions").
     */
    public static final String KEEP_VERSIONS_PROP_NAME = "dkv.memory.keep.versions";
    public static final boolean KEEP_VERSIONS_DEFAULT = true;
    public static final int VERSION_SWEEP_MS_DEFAULT = 10_000;

    /**
     * Bytes a segment of the node's version log grows to before it opens another: the sweep drops a closed segment
     * once the cluster's durable epoch passed every version in it, carrying each key's newest into the key store, and
     * holds one segment's distinct keys in memory while it does.
     */
    public static final String VERSION_SEGMENT_BYTES_PROP_NAME = "dkv.memory.version.segment.bytes";
    public static final int VERSION_SEGMENT_BYTES_DEFAULT = 16 << 20;

    /**
     * Longest a key written to disk without an fsync (durability async, appendfsync everysec) waits for one: the
     * request server fsyncs the key store's log once the oldest such write is this old, as redis's everysec does.
     */
    public static final String FSYNC_INTERVAL_MS_PROP_NAME = "dkv.memory.fsync.interval.ms";
    public static final int FSYNC_INTERVAL_MS_DEFAULT = 1_000;

    /**
     * The length of a durable epoch as the clients count them ({@code dkv.client.epoch.ms}): a node that holds no
     * client's ring counts its durable epoch by its clock in these (kv-memory-node/README.md, "Async across nodes").
     */
    public static final String EPOCH_MS_PROP_NAME = "dkv.memory.epoch.ms";
    public static final int EPOCH_MS_DEFAULT = 50;

    /**
     * Longest a key told under durability async (appendfsync everysec) waits to be written to the key store with
     * others: one write of the store costs a system call, whatever it holds. A sync request writes at once.
     */
    public static final String BATCH_DELAY_US_PROP_NAME = "dkv.memory.batch.delay.us";
    public static final int BATCH_DELAY_US_DEFAULT = 2_000;

    /** Where the node keeps keys on disk (RocksDB); unset: nowhere, and clients can ask for durability none only. */
    public static final String DATA_DIR_PROP_NAME = "dkv.memory.data.dir";

    /**
     * How the request server (allocations, frees) waits for requests ({@link io.dkv.agent.IdleStrategies}):
     * backing off to parking, as a memory node has almost nothing to do per request.
     */
    public static final String IDLE_STRATEGY_PROP_NAME = "dkv.memory.idle.strategy";
    public static final String IDLE_STRATEGY_DEFAULT = io.dkv.agent.IdleStrategies.BACKOFF_DEFAULT;

    private MemoryNodeConfiguration()
    {
    }
}

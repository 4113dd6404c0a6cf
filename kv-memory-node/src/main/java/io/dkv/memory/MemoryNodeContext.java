package io.dkv.memory;

import io.dkv.clock.CommonContext;
import io.dkv.format.HeapLayout;
import org.agrona.concurrent.status.CountersManager;

import java.nio.file.Path;
import java.util.function.LongConsumer;

import static io.dkv.memory.MemoryNodeConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.requirePositive;
import static io.dkv.verbs.ConfigurationProperties.requirePowerOfTwo;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * How a memory node sizes its index and heap.
 *
 * <p>{@link #epochClock()} is what the node judges keys' expiry by (its scan, and which keys on disk it loads back);
 * {@link #nanoClock()} is what it measures its intervals by: a retired chunk's grace period, the expiry scan's
 * interval, a batch's time to disk. Left unset, the process's ({@link io.dkv.clock.Clocks}).
 */
public final class MemoryNodeContext extends CommonContext<MemoryNodeContext>
{
    private int indexGroups = intProperty(INDEX_GROUPS_PROP_NAME, INDEX_GROUPS_DEFAULT);
    private int chunkBytes = intProperty(CHUNK_BYTES_PROP_NAME, CHUNK_BYTES_DEFAULT);
    private int heapChunks = intProperty(HEAP_CHUNKS_PROP_NAME, HEAP_CHUNKS_DEFAULT);
    private int graceMs = intProperty(GRACE_MS_PROP_NAME, GRACE_MS_DEFAULT);
    private int reserveShare = intProperty(RESERVE_SHARE_PROP_NAME, RESERVE_SHARE_DEFAULT);
    private int maxGlobalDepth = intProperty(MAX_GLOBAL_DEPTH_PROP_NAME, MAX_GLOBAL_DEPTH_DEFAULT);
    private int expiryScanMs = intProperty(EXPIRY_SCAN_MS_PROP_NAME, EXPIRY_SCAN_MS_DEFAULT);
    private int versionSweepMs = intProperty(VERSION_SWEEP_MS_PROP_NAME, VERSION_SWEEP_MS_DEFAULT);
    private int versionSegmentBytes = intProperty(VERSION_SEGMENT_BYTES_PROP_NAME, VERSION_SEGMENT_BYTES_DEFAULT);
    private int fsyncIntervalMs = intProperty(FSYNC_INTERVAL_MS_PROP_NAME, FSYNC_INTERVAL_MS_DEFAULT);
    private int epochMs = intProperty(EPOCH_MS_PROP_NAME, EPOCH_MS_DEFAULT);
    private int batchDelayUs = intProperty(BATCH_DELAY_US_PROP_NAME, BATCH_DELAY_US_DEFAULT);
    private byte[] clusterSecret;
    private boolean drainOnClose = true;
    private boolean keepVersions = Boolean.parseBoolean(System.getProperty(KEEP_VERSIONS_PROP_NAME,
        Boolean.toString(KEEP_VERSIONS_DEFAULT)));
    private boolean awaitPoolCut;
    /** null unless set: the node cannot restart itself, and refuses a RESTART. */
    private LongConsumer restartFromDisk;
    private String idleStrategy = System.getProperty(IDLE_STRATEGY_PROP_NAME, IDLE_STRATEGY_DEFAULT);
    /** null unless set: the request server's idle strategy is then this one, not one parsed from the spec. */
    private org.agrona.concurrent.IdleStrategy idleStrategyInstance;
    private Path dataDir =
        System.getProperty(DATA_DIR_PROP_NAME) == null ? null : Path.of(System.getProperty(DATA_DIR_PROP_NAME));
    private Path errorDirectory;
    /** null until set: the node keeps its counters in memory of its own. */
    private CountersManager countersManager;
    private boolean join;

    /** @return true when the node registers asking to be added by moving keys; false (the default): it founds. */
    public boolean join()
    {
        return join;
    }

    /**
     * Register asking to be added by moving keys (placed after only, the membership change in FILL) rather than
     * found (a live placed member at once). The driver registers the node before the node starts, so whoever makes
     * the driver's directory hands this on ({@code MetaDirectoryContext.join}), as {@code ./dkv memory-node --join}
     * does.
     */
    public MemoryNodeContext join(final boolean join)
    {
        this.join = join;
        return this;
    }

    public int indexGroups()
    {
        return indexGroups;
    }

    public MemoryNodeContext indexGroups(final int indexGroups)
    {
        this.indexGroups = indexGroups;
        return this;
    }

    public int chunkBytes()
    {
        return chunkBytes;
    }

    public MemoryNodeContext chunkBytes(final int chunkBytes)
    {
        this.chunkBytes = chunkBytes;
        return this;
    }

    public int heapChunks()
    {
        return heapChunks;
    }

    public MemoryNodeContext heapChunks(final int heapChunks)
    {
        this.heapChunks = heapChunks;
        return this;
    }

    /** @return how many times the index may double: it holds up to 2^maxGlobalDepth subtables. */
    public int maxGlobalDepth()
    {
        return maxGlobalDepth;
    }

    public MemoryNodeContext maxGlobalDepth(final int maxGlobalDepth)
    {
        this.maxGlobalDepth = maxGlobalDepth;
        return this;
    }

    /** @return the heap's share, in 1/1024ths, kept for writes that free memory ({@link #reserveBytes}). */
    public int reserveShare()
    {
        return reserveShare;
    }

    /** @param reserveShare 0 to 512: the heap's share, in 1/1024ths, that only writes that free memory get. */
    public MemoryNodeContext reserveShare(final int reserveShare)
    {
        this.reserveShare = reserveShare;
        return this;
    }

    /** @return bytes of the heap kept for writes that free memory, a multiple of 64. */
    public long reserveBytes()
    {
        return HeapLayout.regionLength(heapChunks, chunkBytes) * reserveShare / 1024 & ~63L;
    }

    /** @return how long a chunk no slot points into waits before it is handed out again. */
    public int graceMs()
    {
        return graceMs;
    }

    /** @param graceMs longer than any client's operation timeout (clients with a longer one are refused). */
    public MemoryNodeContext graceMs(final int graceMs)
    {
        this.graceMs = graceMs;
        return this;
    }

    /** @return how often the node empties the slots of keys whose expiry has passed. */
    /** @return longest a key written without an fsync waits for one, in milliseconds. */
    public int fsyncIntervalMs()
    {
        return fsyncIntervalMs;
    }

    /** @param fsyncIntervalMs longest a key written without an fsync (durability async) waits for one. */
    public MemoryNodeContext fsyncIntervalMs(final int fsyncIntervalMs)
    {
        this.fsyncIntervalMs = fsyncIntervalMs;
        return this;
    }

    /** @return the length of a durable epoch, in milliseconds. */
    public int epochMs()
    {
        return epochMs;
    }

    /** @param epochMs the length of a durable epoch, as the node's clients count them. */
    public MemoryNodeContext epochMs(final int epochMs)
    {
        this.epochMs = epochMs;
        return this;
    }

    /** @return longest a key no writer waits for waits to be written to the key store with others, in microseconds. */
    public int batchDelayUs()
    {
        return batchDelayUs;
    }

    /** @param batchDelayUs longest a key told under durability async waits to be written with others (0: none). */
    public MemoryNodeContext batchDelayUs(final int batchDelayUs)
    {
        this.batchDelayUs = batchDelayUs;
        return this;
    }

    /** @return true when {@link MemoryNode#close} handles the requests already sent and fsyncs before it stops. */
    public boolean drainOnClose()
    {
        return drainOnClose;
    }

    /**
     * @param drainOnClose true (the default): a close is a clean stop, handling the requests clients already sent
     *                     and fsyncing the key store, as redis's shutdown save; false: it leaves what a crash leaves
     *                     (for tests of what a crash may lose).
     */
    public MemoryNodeContext drainOnClose(final boolean drainOnClose)
    {
        this.drainOnClose = drainOnClose;
        return this;
    }

    /** @return the cluster's secret, whose fingerprint the data directory records, or null when not given. */
    public byte[] clusterSecret()
    {
        return clusterSecret;
    }

    /**
     * @param clusterSecret the cluster's secret: the data directory records its fingerprint, and a directory of
     *                      another cluster is refused; null skips the check.
     */
    public MemoryNodeContext clusterSecret(final byte[] clusterSecret)
    {
        this.clusterSecret = clusterSecret;
        return this;
    }

    public int expiryScanMs()
    {
        return expiryScanMs;
    }

    public MemoryNodeContext expiryScanMs(final int expiryScanMs)
    {
        this.expiryScanMs = expiryScanMs;
        return this;
    }

    /** @return whether the node keeps key versions on disk ({@link #keepVersions(boolean)}). */
    public boolean keepVersions()
    {
        return keepVersions;
    }

    /** @param keepVersions keep each key's versions by epoch beside its row ({@code KEEP_VERSIONS_PROP_NAME}). */
    public MemoryNodeContext keepVersions(final boolean keepVersions)
    {
        this.keepVersions = keepVersions;
        return this;
    }

    /** @return whether a node back from its disk with versions waits for the pool's cut ({@link #awaitPoolCut}). */
    public boolean awaitPoolCut()
    {
        return awaitPoolCut;
    }

    /**
     * @param awaitPoolCut a node that comes back from a disk with versions holds its durable epoch and versions as
     *                     loaded, so that the pool can roll it back to one cut, until {@link MemoryNode#endRecovery}:
     *                     for a process that runs that recovery (the memory node's command, through its refill);
     *                     off, the node serves as loaded and its epochs go on (kv-memory-node/README.md).
     */
    public MemoryNodeContext awaitPoolCut(final boolean awaitPoolCut)
    {
        this.awaitPoolCut = awaitPoolCut;
        return this;
    }

    /** @return what restarts the node from its disk when a member asks ({@link #restartFromDisk(LongConsumer)}). */
    public LongConsumer restartFromDisk()
    {
        return restartFromDisk;
    }

    /**
     * @param restartFromDisk called on the node's request thread with the asking member's id when a member asks this
     *                        incarnation to start again from its disk (MemoryNodeProtocol.RESTART: every copy of some
     *                        keys was lost while this node served, kv-memory-node/README.md); it must not block, and
     *                        the process then closes the node and starts it again on its data directory. null (the
     *                        default): the node refuses, as one embedded in another process does.
     */
    public MemoryNodeContext restartFromDisk(final LongConsumer restartFromDisk)
    {
        this.restartFromDisk = restartFromDisk;
        return this;
    }

    /** @return how often the key versions on disk are passed over ({@link #versionSweepMs(int)}). */
    public int versionSweepMs()
    {
        return versionSweepMs;
    }

    /** @param versionSweepMs how often the versions the cluster's durable epoch passed are dropped from disk. */
    public MemoryNodeContext versionSweepMs(final int versionSweepMs)
    {
        this.versionSweepMs = versionSweepMs;
        return this;
    }

    /** @return bytes a segment of the version log grows to ({@link #versionSegmentBytes(int)}). */
    public int versionSegmentBytes()
    {
        return versionSegmentBytes;
    }

    /** @param versionSegmentBytes bytes a segment of the version log grows to before another is opened. */
    public MemoryNodeContext versionSegmentBytes(final int versionSegmentBytes)
    {
        this.versionSegmentBytes = versionSegmentBytes;
        return this;
    }

    /** @return where keys are kept on disk, or null: nowhere (durability none only). */
    public Path dataDir()
    {
        return dataDir;
    }

    public MemoryNodeContext dataDir(final Path dataDir)
    {
        this.dataDir = dataDir;
        return this;
    }

    /**
     * Check the settings together, and fill in the clocks left unset with the process's.
     *
     * @return this.
     * @throws IllegalArgumentException naming the setting that is out of range.
     */
    public MemoryNodeContext conclude()
    {
        super.conclude();
        requirePowerOfTwo("indexGroups (" + INDEX_GROUPS_PROP_NAME + ")", indexGroups, 1, 1 << 24);
        if (chunkBytes < 4096 || (chunkBytes & 63) != 0)
        {
            throw new IllegalArgumentException("chunkBytes " + chunkBytes +
                " is not a multiple of 64 of at least 4096 (" +
                CHUNK_BYTES_PROP_NAME + ")");
        }
        requireRange("maxGlobalDepth (" + MAX_GLOBAL_DEPTH_PROP_NAME + ")", maxGlobalDepth, 0, 12);
        requirePositive("graceMs (" + GRACE_MS_PROP_NAME + ")", graceMs);
        requireRange("reserveShare (" + RESERVE_SHARE_PROP_NAME + ")", reserveShare, 0, 512);
        requirePositive("expiryScanMs (" + EXPIRY_SCAN_MS_PROP_NAME + ")", expiryScanMs);
        requirePositive("versionSweepMs (" + VERSION_SWEEP_MS_PROP_NAME + ")", versionSweepMs);
        requirePositive("versionSegmentBytes (" + VERSION_SEGMENT_BYTES_PROP_NAME + ")", versionSegmentBytes);
        requirePositive("fsyncIntervalMs (" + FSYNC_INTERVAL_MS_PROP_NAME + ")", fsyncIntervalMs);
        requirePositive("epochMs (" + EPOCH_MS_PROP_NAME + ")", epochMs);
        requireRange("batchDelayUs (" + BATCH_DELAY_US_PROP_NAME + ")", batchDelayUs, 0, 1_000_000);
        requirePositive("heapChunks (" + HEAP_CHUNKS_PROP_NAME + ")", heapChunks);
        io.dkv.agent.IdleStrategies.require("idleStrategy (" + IDLE_STRATEGY_PROP_NAME + ")", idleStrategy);
        return this;
    }

    public String idleStrategy()
    {
        return idleStrategy;
    }

    /** @param spec how the request server waits for requests, as {@link io.dkv.agent.IdleStrategies} reads it. */
    public MemoryNodeContext idleStrategy(final String spec)
    {
        this.idleStrategy = spec;
        return this;
    }

    /** @return the idle strategy set as an object, or null: the one {@link #idleStrategy()} names. */
    public org.agrona.concurrent.IdleStrategy idleStrategyInstance()
    {
        return idleStrategyInstance;
    }

    /**
     * @param strategy how the request server waits between its turns, as an object (Aeron's contexts take one too):
     *                 it runs on the server's thread between turns, so a test can hold the node's CPU work (PERSISTs
     *                 unread, nothing written to disk) while clients' one-sided requests go on.
     */
    public MemoryNodeContext idleStrategyInstance(final org.agrona.concurrent.IdleStrategy strategy)
    {
        this.idleStrategyInstance = strategy;
        return this;
    }

    /** @return where the node keeps its error file for other processes to read; null keeps errors in memory. */
    public Path errorDirectory()
    {
        return errorDirectory;
    }

    /**
     * @param errorDirectory the host's error files ({@link io.dkv.agent.ErrorFile#hostDirectory}): the node keeps
     *                       its request server's errors in {@code memory-node-<id>.errors} there, where
     *                       {@code ./dkv memory-node --errors} reads them; null keeps them in memory.
     */
    public MemoryNodeContext errorDirectory(final Path errorDirectory)
    {
        this.errorDirectory = errorDirectory;
        return this;
    }

    /** @return where the node allocates its counters; null for memory of its own. */
    public CountersManager countersManager()
    {
        return countersManager;
    }

    /**
     * @param countersManager where the node allocates its counters ({@link MemoryNodeCounter}): the counters file of
     *                        its process ({@code memory-node-<id>.counters}, which holds its driver's counters too),
     *                        where {@code ./dkv memory-node --counters} reads them; null keeps them in memory.
     */
    public MemoryNodeContext countersManager(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        return this;
    }
}

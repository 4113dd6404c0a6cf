package io.dkv.client;

import io.dkv.client.node.RingMarks;
import io.dkv.client.node.WriteEpochs;
import io.dkv.clock.Clocks;
import io.dkv.clock.CommonContext;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.client.KvClientConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.requirePositive;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * Which memory nodes a client spreads keys over, and its limits.
 *
 * <p>{@link #epochClock()} is what the client judges keys' expiry times by (epoch milliseconds): a test moves its own
 * clock rather than waiting. {@link #nanoClock()} is what it measures its operations' durations by: their timeout,
 * and how long a version read stays comparable by its slot word. Left unset, the process's
 * ({@link io.dkv.clock.Clocks}).
 */
public final class KvClientContext extends CommonContext<KvClientContext>
{
    private long[] memoryNodes = Arrays.stream(System.getProperty(MEMORY_NODES_PROP_NAME, "").split(","))
        .map(String::strip).filter(id -> !id.isEmpty()).mapToLong(Long::parseLong).toArray();
    private int timeoutMs = intProperty(TIMEOUT_MS_PROP_NAME, TIMEOUT_MS_DEFAULT);
    private int epochMs = intProperty(EPOCH_MS_PROP_NAME, EPOCH_MS_DEFAULT);
    private WriteEpochs writeEpochs;
    private final AtomicLong heapLimitChanges = new AtomicLong();
    private RingMarks ringMarks;
    private int maxRetries = intProperty(MAX_RETRIES_PROP_NAME, MAX_RETRIES_DEFAULT);
    private int txnRetries = intProperty(TXN_RETRIES_PROP_NAME, TXN_RETRIES_DEFAULT);
    private int collectionSegmentBytes =
        intProperty(COLLECTION_SEGMENT_BYTES_PROP_NAME, COLLECTION_SEGMENT_BYTES_DEFAULT);
    private int txnPushMs = intProperty(TXN_PUSH_MS_PROP_NAME, TXN_PUSH_MS_DEFAULT);
    private Boolean txnStageInFlight =
        stageInFlight(System.getProperty(TXN_STAGE_IN_FLIGHT_PROP_NAME, TXN_STAGE_IN_FLIGHT_DEFAULT));
    private int txnResolutionsQueued = intProperty(TXN_RESOLUTIONS_QUEUED_PROP_NAME, TXN_RESOLUTIONS_QUEUED_DEFAULT);
    private int unavailableRetryMs = intProperty(UNAVAILABLE_RETRY_MS_PROP_NAME, UNAVAILABLE_RETRY_MS_DEFAULT);
    private int asyncThreads = intProperty(ASYNC_THREADS_PROP_NAME, ASYNC_THREADS_DEFAULT);
    private int replicas = intProperty(REPLICAS_PROP_NAME, REPLICAS_DEFAULT);
    private int failoverWaitMs = intProperty(FAILOVER_WAIT_MS_PROP_NAME, FAILOVER_WAIT_MS_DEFAULT);
    private int membershipRefreshMs = intProperty(MEMBERSHIP_REFRESH_MS_PROP_NAME, MEMBERSHIP_REFRESH_MS_DEFAULT);
    private int membershipLeaseMs = intProperty(MEMBERSHIP_LEASE_MS_PROP_NAME, MEMBERSHIP_LEASE_MS_DEFAULT);
    /** Volatile: a running client's owner may change it ({@link KvClient#durability(Durability)}). */
    private volatile Durability durability =
        Durability.valueOf(System.getProperty(DURABILITY_PROP_NAME, DURABILITY_DEFAULT).toUpperCase());

    /**
     * @param nodeIds the memory nodes, by their RaaS node ids; keys go to them by rendezvous hashing. None given:
     *                the memory nodes the directory (the MetaServer) lists when the client connects.
     */
    public KvClientContext memoryNodes(final long... nodeIds)
    {
        this.memoryNodes = nodeIds.clone();
        return this;
    }

    public long[] memoryNodes()
    {
        return memoryNodes.clone();
    }

    public int epochMs()
    {
        return epochMs;
    }

    /** @param epochMs the length of a durable epoch ({@link KvClientConfiguration#EPOCH_MS_PROP_NAME}). */
    public KvClientContext epochMs(final int epochMs)
    {
        this.epochMs = epochMs;
        return this;
    }

    /**
     * @return the client's durable epochs, made once from its epoch clock (the process's when left unset), so that the
     * client's sessions share them.
     */
    public synchronized WriteEpochs writeEpochs()
    {
        if (writeEpochs == null)
        {
            writeEpochs = new WriteEpochs(epochClock() != null ? epochClock() : Clocks.epochClock(), epochMs);
        }
        return writeEpochs;
    }

    /**
     * @return how many times the client changed the pool's heap limits ({@link KvClient#maxMemory(long)}): a session
     * that took a node as full before the latest change asks it again at its next write.
     */
    public AtomicLong heapLimitChanges()
    {
        return heapLimitChanges;
    }

    /** @return the marks of the client's persist rings, written once an epoch from {@link #writeEpochs()}. */
    public synchronized RingMarks ringMarks()
    {
        if (ringMarks == null)
        {
            ringMarks = new RingMarks(writeEpochs(), epochMs);
        }
        return ringMarks;
    }

    public int timeoutMs()
    {
        return timeoutMs;
    }

    public KvClientContext timeoutMs(final int timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    public int unavailableRetryMs()
    {
        return unavailableRetryMs;
    }

    /**
     * @param unavailableRetryMs how long the operations on the keys of a memory node that could not be read fail at
     *                           once before its view is read again (0: every operation tries).
     */
    public KvClientContext unavailableRetryMs(final int unavailableRetryMs)
    {
        this.unavailableRetryMs = unavailableRetryMs;
        return this;
    }

    public int maxRetries()
    {
        return maxRetries;
    }

    public KvClientContext maxRetries(final int maxRetries)
    {
        this.maxRetries = maxRetries;
        return this;
    }

    public int txnRetries()
    {
        return txnRetries;
    }

    public int collectionSegmentBytes()
    {
        return collectionSegmentBytes;
    }

    /** @param collectionSegmentBytes bytes of elements a collection's segment holds on average. */
    public KvClientContext collectionSegmentBytes(final int collectionSegmentBytes)
    {
        this.collectionSegmentBytes = collectionSegmentBytes;
        return this;
    }

    /** @param txnRetries runs of a transaction's function after a conflict before the conflict is thrown. */
    public KvClientContext txnRetries(final int txnRetries)
    {
        this.txnRetries = txnRetries;
        return this;
    }

    /** @return milliseconds a pending intent stands before a waiting client aborts its transaction. */
    public int txnPushMs()
    {
        return txnPushMs == 0 ? timeoutMs : txnPushMs;
    }

    /** @param txnPushMs how long a transaction's pending intent stands before waiters abort it; 0: the timeout. */
    public KvClientContext txnPushMs(final int txnPushMs)
    {
        this.txnPushMs = txnPushMs;
        return this;
    }

    /**
     * @return whether a parallel commit's intents are swapped in all at once, carried by completions; null for
     * {@code auto}: all at once where the client's requests wait on a wire or a NIC.
     */
    public Boolean txnStageInFlight()
    {
        return txnStageInFlight;
    }

    /** @return {@code value} of the stage-in-flight setting as {@link #txnStageInFlight()} says it. */
    private static Boolean stageInFlight(final String value)
    {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT))
        {
            case "auto" -> null;
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException(TXN_STAGE_IN_FLIGHT_PROP_NAME + " is auto, true or " +
                "false; this one is '" + value + "'");
        };
    }

    /** @param txnStageInFlight a parallel commit's intents all at once (true) or one after the other (false). */
    public KvClientContext txnStageInFlight(final boolean txnStageInFlight)
    {
        this.txnStageInFlight = txnStageInFlight;
        return this;
    }

    /** @return committed transactions' resolutions queued for the client's threads at most. */
    public int txnResolutionsQueued()
    {
        return txnResolutionsQueued;
    }

    /** @param txnResolutionsQueued resolutions queued at most; 0: each committing thread resolves its own. */
    public KvClientContext txnResolutionsQueued(final int txnResolutionsQueued)
    {
        this.txnResolutionsQueued = txnResolutionsQueued;
        return this;
    }

    public Durability durability()
    {
        return durability;
    }

    /**
     * @param durability what a write's acknowledgement promises; ASYNC and SYNC need memory nodes with a data
     * directory. A client reads it as each write begins, so it may be changed while the client runs, though
     * {@link KvClient#durability(Durability)} is the way: it refuses ASYNC and SYNC over a node that keeps nothing on
     * disk.
     */
    public KvClientContext durability(final Durability durability)
    {
        this.durability = durability;
        return this;
    }

    public int replicas()
    {
        return replicas;
    }

    /**
     * @param replicas copies of each key (written to that many memory nodes, read from one), or 0 for the count the
     *                 directory keeps (the MetaServer's setting): every client of a store must use the same.
     */
    public KvClientContext replicas(final int replicas)
    {
        this.replicas = replicas;
        return this;
    }

    public int failoverWaitMs()
    {
        return failoverWaitMs;
    }

    /**
     * @param failoverWaitMs how long an operation on replicated keys waits for a node that does not answer to be
     *                       declared down before it fails; longer than the MetaServer's lease.
     */
    public KvClientContext failoverWaitMs(final int failoverWaitMs)
    {
        this.failoverWaitMs = failoverWaitMs;
        return this;
    }

    public int membershipRefreshMs()
    {
        return membershipRefreshMs;
    }

    /**
     * @param membershipRefreshMs how often a client with replicated keys reads the membership again unprompted.
     */
    public KvClientContext membershipRefreshMs(final int membershipRefreshMs)
    {
        this.membershipRefreshMs = membershipRefreshMs;
        return this;
    }

    public int membershipLeaseMs()
    {
        return membershipLeaseMs;
    }

    /**
     * @param membershipLeaseMs the oldest membership this client acts on (see
     *                          {@link KvClientConfiguration#MEMBERSHIP_LEASE_MS_PROP_NAME}).
     */
    public KvClientContext membershipLeaseMs(final int membershipLeaseMs)
    {
        this.membershipLeaseMs = membershipLeaseMs;
        return this;
    }

    public int asyncThreads()
    {
        return asyncThreads;
    }

    public KvClientContext asyncThreads(final int asyncThreads)
    {
        this.asyncThreads = asyncThreads;
        return this;
    }

    /**
     * Check the settings together, and fill in the clocks left unset with the process's.
     *
     * @return this.
     */
    public KvClientContext conclude()
    {
        super.conclude();
        requirePositive("asyncThreads (" + ASYNC_THREADS_PROP_NAME + ")", asyncThreads);
        if (Arrays.stream(memoryNodes).distinct().count() != memoryNodes.length)
        {
            throw new IllegalArgumentException("memory nodes " + Arrays.toString(memoryNodes) + " name one node twice");
        }
        requirePositive("timeoutMs (" + TIMEOUT_MS_PROP_NAME + ")", timeoutMs);
        requirePositive("epochMs (" + EPOCH_MS_PROP_NAME + ")", epochMs);
        writeEpochs();
        if (unavailableRetryMs < 0)
        {
            throw new IllegalArgumentException("unavailableRetryMs (" + UNAVAILABLE_RETRY_MS_PROP_NAME +
                ") must be 0 or more: " + unavailableRetryMs);
        }
        requirePositive("maxRetries (" + MAX_RETRIES_PROP_NAME + ")", maxRetries);
        requirePositive("txnRetries (" + TXN_RETRIES_PROP_NAME + ")", txnRetries);
        requirePositive("collectionSegmentBytes (" + COLLECTION_SEGMENT_BYTES_PROP_NAME + ")", collectionSegmentBytes);
        if (txnResolutionsQueued < 0)
        {
            throw new IllegalArgumentException("txnResolutionsQueued (" + TXN_RESOLUTIONS_QUEUED_PROP_NAME +
                ") must be 0 or more: " + txnResolutionsQueued);
        }
        if (txnPushMs < 0)
        {
            throw new IllegalArgumentException("txnPushMs (" + TXN_PUSH_MS_PROP_NAME + ") must be 0 or more: " +
                txnPushMs);
        }
        requireRange("replicas (" + REPLICAS_PROP_NAME + ")", replicas, 0, MAX_REPLICAS);
        requirePositive("failoverWaitMs (" + FAILOVER_WAIT_MS_PROP_NAME + ")", failoverWaitMs);
        requirePositive("membershipRefreshMs (" + MEMBERSHIP_REFRESH_MS_PROP_NAME + ")", membershipRefreshMs);
        if (membershipLeaseMs < membershipRefreshMs)
        {
            throw new IllegalArgumentException("membershipLeaseMs (" + MEMBERSHIP_LEASE_MS_PROP_NAME + ") is " +
                membershipLeaseMs + " ms, shorter than the refresh period membershipRefreshMs (" +
                MEMBERSHIP_REFRESH_MS_PROP_NAME + ") of " + membershipRefreshMs + " ms");
        }
        return this;
    }
}

package io.dkv.client;

/**
 * Settings of a KV client: system property names and defaults.
 */
public final class KvClientConfiguration
{
    /** How long an operation may take before it fails naming the memory node that did not answer. */
    public static final String TIMEOUT_MS_PROP_NAME = "dkv.client.timeout.ms";
    public static final int TIMEOUT_MS_DEFAULT = 5_000;

    /**
     * The length of a durable epoch (kv-memory-node/README.md, "Async across nodes"): what a crash of every copy under
     * appendfsync everysec loses is whole epochs, every transaction whole or absent.
     */
    public static final String EPOCH_MS_PROP_NAME = "dkv.client.epoch.ms";
    public static final int EPOCH_MS_DEFAULT = 50;

    /**
     * Rounds an operation retries after losing a CAS race before it gives up (a livelock guard, not a limit anyone
     * should meet).
     */
    public static final String MAX_RETRIES_PROP_NAME = "dkv.client.max.retries";
    public static final int MAX_RETRIES_DEFAULT = 10_000;

    /** Threads that run the asynchronous operations (each with its own connections and chunks). */
    public static final String ASYNC_THREADS_PROP_NAME = "dkv.client.async.threads";
    public static final int ASYNC_THREADS_DEFAULT = 4;

    /**
     * How often the view of a memory node that could not be read is read again: meanwhile the operations on its keys
     * fail at once, naming it. 0: at every operation on its keys.
     */
    public static final String UNAVAILABLE_RETRY_MS_PROP_NAME = "dkv.client.unavailable.retry.ms";
    public static final int UNAVAILABLE_RETRY_MS_DEFAULT = 250;

    /**
     * Copies of each key (1 to 7): written to that many memory nodes, read from one. 0: the directory's count (the
     * MetaServer's cluster setting), 1 where the directory keeps none. Every client of a store must use the same.
     */
    public static final String REPLICAS_PROP_NAME = "dkv.client.replicas";
    public static final int REPLICAS_DEFAULT = 0;
    public static final int MAX_REPLICAS = 7;

    /**
     * How often a client with replicated keys reads the membership again with no failed request to prompt it (it
     * reads it at once after one, at most every {@link #UNAVAILABLE_RETRY_MS_PROP_NAME}).
     */
    public static final String MEMBERSHIP_REFRESH_MS_PROP_NAME = "dkv.client.membership.refresh.ms";
    public static final int MEMBERSHIP_REFRESH_MS_DEFAULT = 1_000;

    /**
     * The oldest membership a client acts on: an operation that finds its view older reads it again, and fails naming
     * the directory when it cannot. A membership change moves to its next phase only after this plus an operation's
     * timeout, so that no two clients are more than one phase apart. At least the refresh period.
     */
    public static final String MEMBERSHIP_LEASE_MS_PROP_NAME = "dkv.client.membership.lease.ms";
    public static final int MEMBERSHIP_LEASE_MS_DEFAULT = 3_000;

    /**
     * How long an operation on replicated keys waits for a memory node that does not answer to be declared down (its
     * MetaServer lease to run out, {@code dkv.meta.server.lease.ms}, 5 s by default) before it fails: longer than the
     * lease, so that a node's death costs a pause, not an error.
     */
    public static final String FAILOVER_WAIT_MS_PROP_NAME = "dkv.client.failover.wait.ms";
    public static final int FAILOVER_WAIT_MS_DEFAULT = 10_000;

    /** none, async or sync: see {@link Durability}. */
    public static final String DURABILITY_PROP_NAME = "dkv.client.durability";
    public static final String DURABILITY_DEFAULT = "none";

    /**
     * The memory nodes' ids, comma-separated, for a client made by a program that does not name them (a compute node):
     * a client that reads the directory's membership instead hashes keys over whatever nodes hold a lease as it starts,
     * so one started while a memory node is down would put that node's keys elsewhere. Empty: the directory's.
     */
    public static final String MEMORY_NODES_PROP_NAME = "dkv.client.memory.nodes";

    /**
     * How many times {@code KvClient.transact} runs a transaction's function again after a conflict (another
     * transaction or write changed what it read or wrote) before it throws the conflict; each retry waits a random
     * backoff first.
     */
    public static final String TXN_RETRIES_PROP_NAME = "dkv.client.txn.retries";
    public static final int TXN_RETRIES_DEFAULT = 1_000;

    /**
     * The bytes of elements a collection's segment holds on average (client/README.md, "Hashes and sets"): a hash or
     * set splits a segment when it holds more than this many per segment and merges two when under a quarter of it.
     * Smaller: less read and rewritten per element's change, more segments to read for the whole collection.
     */
    public static final String COLLECTION_SEGMENT_BYTES_PROP_NAME = "dkv.client.collection.segment.bytes";
    public static final int COLLECTION_SEGMENT_BYTES_DEFAULT = 1024;

    /**
     * How long a transaction's pending intent may stand unchanged before a client that waits on it aborts that
     * transaction (its coordinator died, or stalled): a liveness bound only, as the abort and the coordinator's commit
     * are one compare-and-set from the same word. 0: the operation timeout.
     */
    public static final String TXN_PUSH_MS_PROP_NAME = "dkv.client.txn.push.ms";
    public static final int TXN_PUSH_MS_DEFAULT = 0;

    /**
     * Whether a parallel commit swaps its intents in all at once, carried by completions, rather than one after the
     * other on the committing thread: {@code auto} (the default) all at once where the client's requests wait on a
     * wire or a NIC (tcp, verbs), where round trips cost most, and one after the other on {@code shm}, where a
     * request costs the CPU that carries it and one after the other measured faster (client/README.md, "Parallel
     * commit"); {@code true} or {@code false} to choose.
     */
    public static final String TXN_STAGE_IN_FLIGHT_PROP_NAME = "dkv.client.txn.stage.in.flight";
    public static final String TXN_STAGE_IN_FLIGHT_DEFAULT = "auto";

    /**
     * Committed transactions' resolutions (the decision, then each key swapped for its value) queued for the client's
     * resolution agent after their answer, at most (a power of two): past it, a committing thread resolves its own
     * before it answers, so that intents are never left faster than they are resolved. 0: each resolves its own.
     */
    public static final String TXN_RESOLUTIONS_QUEUED_PROP_NAME = "dkv.client.txn.resolutions.queued";
    public static final int TXN_RESOLUTIONS_QUEUED_DEFAULT = 64;

    private KvClientConfiguration()
    {
    }
}

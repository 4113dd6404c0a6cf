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

    /** none, async or sync: see {@link Durability}. */
    public static final String DURABILITY_PROP_NAME = "dkv.client.durability";
    public static final String DURABILITY_DEFAULT = "none";

    /**
     * The memory nodes' ids, comma-separated, for a client made by a program that does not name them (a compute node):
     * a client that reads the directory's membership instead hashes keys over whatever nodes hold a lease as it starts,
     * so one started while a memory node is down would put that node's keys elsewhere. Empty: the directory's.
     */
    public static final String MEMORY_NODES_PROP_NAME = "dkv.client.memory.nodes";

    private KvClientConfiguration()
    {
    }
}

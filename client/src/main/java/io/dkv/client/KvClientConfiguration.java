package io.dkv.client;

/**
 * Settings of a KV client: system property names and defaults.
 */
public final class KvClientConfiguration
{
    /** How long an operation may take before it fails naming the memory node that did not answer. */
    public static final String TIMEOUT_MS_PROP_NAME = "dkv.client.timeout.ms";
    public static final int TIMEOUT_MS_DEFAULT = 5_000;

    /** Rounds an operation retries after losing a CAS race before it gives up (a livelock guard, not a limit anyone should meet). */
    public static final String MAX_RETRIES_PROP_NAME = "dkv.client.max.retries";
    public static final int MAX_RETRIES_DEFAULT = 10_000;

    /** Threads that run the asynchronous operations (each with its own connections and chunks). */
    public static final String ASYNC_THREADS_PROP_NAME = "dkv.client.async.threads";
    public static final int ASYNC_THREADS_DEFAULT = 4;

    /** none, async or sync: see {@link Durability}. */
    public static final String DURABILITY_PROP_NAME = "dkv.client.durability";
    public static final String DURABILITY_DEFAULT = "none";

    private KvClientConfiguration()
    {
    }
}

package io.dkv.meta;

/**
 * Configuration properties of a MetaServer: system property names and defaults, from which a
 * {@link MetaServerContext} starts.
 */
public final class MetaServerConfiguration
{
    /** The MetaServer's node id: fixed, so that its endpoint stays the same across restarts. */
    public static final String NODE_ID_PROP_NAME = "dkv.meta.server.node.id";
    public static final long NODE_ID_DEFAULT = 1;

    /** Directory of the RocksDB store and the endpoint file. */
    public static final String DATA_DIR_PROP_NAME = "dkv.meta.server.data.dir";
    public static final String DATA_DIR_DEFAULT = "dkv-meta";

    /** How long a node stays registered without renewing its lease, in milliseconds. */
    public static final String LEASE_MS_PROP_NAME = "dkv.meta.server.lease.ms";
    public static final int LEASE_MS_DEFAULT = 5000;

    /** How often leases are checked for expiry, in milliseconds. */
    public static final String LEASE_CHECK_MS_PROP_NAME = "dkv.meta.server.lease.check.ms";
    public static final int LEASE_CHECK_MS_DEFAULT = 250;

    /**
     * A gap between two lease checks longer than this, in milliseconds, is the server's own stall (SIGSTOP, a VM
     * paused, a long GC): no lease lapses for the time it was not listening. 0 for the default: a quarter of the lease,
     * at least four checks.
     */
    public static final String LEASE_STALL_MS_PROP_NAME = "dkv.meta.server.lease.stall.ms";
    public static final int LEASE_STALL_MS_DEFAULT = 0;

    /** Endpoint of the other MetaServer, which every write is replicated to; empty for none. */
    public static final String PEER_PROP_NAME = "dkv.meta.server.peer";

    /** DC key of the server's driver; 0 draws one at the first start and keeps it in the store. */
    public static final String DC_KEY_PROP_NAME = "dkv.meta.server.dc.key";

    /** Slots of the node table (a power of two). */
    public static final String NODE_SLOTS_PROP_NAME = "dkv.meta.server.node.slots";
    public static final int NODE_SLOTS_DEFAULT = 1024;

    /** Slots of the region table (a power of two). */
    public static final String REGION_SLOTS_PROP_NAME = "dkv.meta.server.region.slots";
    public static final int REGION_SLOTS_DEFAULT = 4096;

    /** A write forwarded to the peer and not acknowledged within this long counts the peer as down, in milliseconds. */
    public static final String FORWARD_TIMEOUT_MS_PROP_NAME = "dkv.meta.server.forward.timeout.ms";
    public static final int FORWARD_TIMEOUT_MS_DEFAULT = 1000;

    /** A peer counted as down is tried again after this long, in milliseconds. */
    public static final String PEER_RETRY_MS_PROP_NAME = "dkv.meta.server.peer.retry.ms";
    public static final int PEER_RETRY_MS_DEFAULT = 1000;

    /** How long a starting server waits for the live peer's state before it serves its own, in milliseconds. */
    public static final String CATCH_UP_TIMEOUT_MS_PROP_NAME = "dkv.meta.server.catch.up.timeout.ms";
    public static final int CATCH_UP_TIMEOUT_MS_DEFAULT = 5000;

    /** A client connection silent for this long is closed (its node may be gone), in milliseconds. */
    public static final String IDLE_CONNECTION_MS_PROP_NAME = "dkv.meta.server.idle.connection.ms";
    public static final int IDLE_CONNECTION_MS_DEFAULT = 120_000;

    /**
     * Copies of each key the cluster keeps on its memory nodes (a key lives on min(replicas, members) of them). Kept
     * in the store: the first start of a store takes this value; a later start changes it only when it is named (this
     * property set, or {@code --replicas}). Two by default: a memory node lost is survived, and one that comes back
     * (or joins) is refilled from the others; with one member keys have one copy all the same.
     */
    public static final String REPLICAS_PROP_NAME = "dkv.meta.replicas";
    public static final int REPLICAS_DEFAULT = 2;
    /** Most copies of a key: each write waits for every live copy. */
    public static final int REPLICAS_MAX = 7;

    /**
     * The memory nodes that found the store, their ids separated by commas; empty for the first to register alone. A
     * memory node that is no member registers without asking to join only to found the store: while it is not founded
     * yet, and as one of these when they are named; any other is refused, saying how to join. The store is founded
     * once all of them are members (or the first, with none named), or once a membership change begins; it stays
     * founded, whatever a later start names.
     */
    public static final String FOUNDERS_PROP_NAME = "dkv.meta.founders";

    /** How the MetaServer's agent waits for RPCs ({@link io.dkv.agent.IdleStrategies}): backing off to parking. */
    public static final String IDLE_STRATEGY_PROP_NAME = "dkv.meta.idle.strategy";
    public static final String IDLE_STRATEGY_DEFAULT = io.dkv.agent.IdleStrategies.BACKOFF_DEFAULT;

    private MetaServerConfiguration()
    {
    }
}

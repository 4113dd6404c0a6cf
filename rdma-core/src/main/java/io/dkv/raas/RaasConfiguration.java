package io.dkv.raas;

/**
 * Configuration properties of RaaS: system property names and defaults, from which a
 * {@link RaasContext} starts.
 */
public final class RaasConfiguration
{
    /** This node's id in the cluster (non-zero); 0 draws a random one. */
    public static final String NODE_ID_PROP_NAME = "dkv.raas.node.id";

    /** Shared DC initiators of a driver. */
    public static final String DCI_COUNT_PROP_NAME = "dkv.raas.dci.count";
    public static final int DCI_COUNT_DEFAULT = 4;

    /** Send queue depth of each pooled queue pair: the requests it may have outstanding. */
    public static final String QP_DEPTH_PROP_NAME = "dkv.raas.qp.depth";
    public static final int QP_DEPTH_DEFAULT = 256;

    /**
     * Whether RaaS runs without DC: every peer over an RC queue pair, which a datagram handshake sets up. "auto"
     * (the default) runs RC-only where the device has no DC (RNICs other than mlx5); every node of a cluster must run
     * the same way.
     */
    public static final String RC_ONLY_PROP_NAME = "dkv.raas.rc.only";
    public static final String RC_ONLY_DEFAULT = "auto";

    /** Most RC queue pairs to hot peers a driver keeps. */
    public static final String RC_POOL_SIZE_PROP_NAME = "dkv.raas.rc.pool.size";
    public static final int RC_POOL_SIZE_DEFAULT = 400;

    /** Requests to one peer within a promotion window that make it hot (0 disables promotion). */
    public static final String RC_PROMOTE_REQUESTS_PROP_NAME = "dkv.raas.rc.promote.requests";
    public static final int RC_PROMOTE_REQUESTS_DEFAULT = 10_000;

    /** The window over which requests are counted for promotion, in milliseconds. */
    public static final String RC_PROMOTE_WINDOW_MS_PROP_NAME = "dkv.raas.rc.promote.window.ms";
    public static final int RC_PROMOTE_WINDOW_MS_DEFAULT = 100;

    /** An RC queue pair with no request for this long is closed and its peer goes back to DC. */
    public static final String RC_IDLE_MS_PROP_NAME = "dkv.raas.rc.idle.ms";
    public static final int RC_IDLE_MS_DEFAULT = 2000;

    /**
     * A shared queue pair whose requests have made no progress for this long (a peer that neither
     * answers nor fails, ahead of others' requests) is recycled: its oldest request fails
     * UNREACHABLE, the others go again. The time is housekeeping's own watch, over at least 50 of its
     * checks (about one a millisecond), so a process that was paused looks again before it recycles.
     */
    public static final String QP_STALL_MS_PROP_NAME = "dkv.raas.qp.stall.ms";
    public static final int QP_STALL_MS_DEFAULT = 2000;

    /**
     * Asynchronous one-sided requests a logical connection may have outstanding. A synchronous call
     * takes no credit: its thread waits for it, so each calling thread has at most one outstanding,
     * and the driver's request slots bound them all.
     */
    public static final String CONNECTION_CREDITS_PROP_NAME = "dkv.raas.connection.credits";
    public static final int CONNECTION_CREDITS_DEFAULT = 64;

    /** Requests the driver can track at once (across all connections). */
    public static final String REQUEST_SLOTS_PROP_NAME = "dkv.raas.request.slots";
    public static final int REQUEST_SLOTS_DEFAULT = 4096;

    /** Bytes a request may carry through the driver's registered staging memory (the copy path). */
    public static final String STAGING_BYTES_PROP_NAME = "dkv.raas.staging.bytes";
    public static final int STAGING_BYTES_DEFAULT = 1024;

    /**
     * Threads that get a lane of their own for synchronous one-sided requests (a queue pair and completion queue
     * they post to and poll themselves); threads beyond these, and virtual threads, share the pipeline. 0: none.
     */
    public static final String SYNC_LANES_PROP_NAME = "dkv.raas.sync.lanes";
    public static final int SYNC_LANES_DEFAULT = 64;

    /** Receive buffers in the driver's shared receive queue. */
    public static final String RECEIVE_BUFFERS_PROP_NAME = "dkv.raas.receive.buffers";
    public static final int RECEIVE_BUFFERS_DEFAULT = 1024;

    /** Bytes of each receive buffer: the largest message carried by SEND. */
    public static final String RECEIVE_BUFFER_BYTES_PROP_NAME = "dkv.raas.receive.buffer.bytes";
    public static final int RECEIVE_BUFFER_BYTES_DEFAULT = 4096;

    /** Messages a connection may have in flight into the receiver's shared receive queue. */
    public static final String MESSAGE_CREDITS_PROP_NAME = "dkv.raas.message.credits";
    public static final int MESSAGE_CREDITS_DEFAULT = 16;

    /** Bytes of the buffer a receiver advertises to each connection for large messages. */
    /**
     * Bytes of its memory a driver allocates for peers that ask (a remote malloc), in all: peers are
     * not authenticated at this layer, so by default a node allocates only for itself.
     */
    public static final String REMOTE_MALLOC_BYTES_PROP_NAME = "dkv.raas.remote.malloc.bytes";
    public static final long REMOTE_MALLOC_BYTES_DEFAULT = 0;

    /**
     * Routes (a node's record and address handle) a driver keeps: beyond, one without an RC queue
     * pair makes room, so that node ids a peer makes up in its messages cannot fill memory. A route
     * given up is made again from the directory when next needed.
     */
    public static final String MAX_ROUTES_PROP_NAME = "dkv.raas.max.routes";
    public static final int MAX_ROUTES_DEFAULT = 65_536;

    public static final String ADVERTISED_BYTES_PROP_NAME = "dkv.raas.advertised.bytes";
    public static final int ADVERTISED_BYTES_DEFAULT = 1024 * 1024;

    /*
     * Admission of CONNECTs. A CONNECT is one message to its sender and a connection to the listener's
     * driver, so what inbound connections hold is bounded: per peer (the address the CONNECT claims, where
     * the answer goes) and in all. A connection accepted but not used yet (no message either way) holds no
     * advertised buffer, and is reclaimed when it outstays its deadline or when a newer one needs its place.
     */

    /** Inbound connections one peer (address) may hold; a CONNECT beyond is refused. */
    public static final String INBOUND_PER_PEER_PROP_NAME = "dkv.raas.inbound.per.peer";
    public static final int INBOUND_PER_PEER_DEFAULT = 1024;

    /** Inbound connections a driver may hold in all; a CONNECT beyond is refused. */
    public static final String INBOUND_MAX_PROP_NAME = "dkv.raas.inbound.max";
    public static final int INBOUND_MAX_DEFAULT = 65_536;

    /**
     * Inbound connections accepted but not used yet that one peer may hold; a CONNECT beyond reclaims the
     * peer's oldest (one that never refuses: a forger claiming a real node's address cannot lock it out).
     */
    public static final String UNUSED_PER_PEER_PROP_NAME = "dkv.raas.unused.per.peer";
    public static final int UNUSED_PER_PEER_DEFAULT = 64;

    /** Inbound connections accepted but not used yet a driver may hold in all; a CONNECT beyond reclaims the oldest. */
    public static final String UNUSED_MAX_PROP_NAME = "dkv.raas.unused.max";
    public static final int UNUSED_MAX_DEFAULT = 1024;

    /** An inbound connection not used this long after it was accepted is reclaimed, in milliseconds. */
    public static final String UNUSED_MS_PROP_NAME = "dkv.raas.unused.ms";
    public static final int UNUSED_MS_DEFAULT = 5000;

    /**
     * Bytes of advertised buffers inbound connections may hold in all (and never more than half the device's
     * regions); a connection used beyond carries its messages without one (SEND, or READ when larger).
     */
    public static final String INBOUND_ADVERT_BYTES_PROP_NAME = "dkv.raas.inbound.advert.bytes";
    public static final long INBOUND_ADVERT_BYTES_DEFAULT = 64L * 1024 * 1024;

    /**
     * Messages up to this size go as SEND, larger ones as WRITE_WITH_IMM into the receiver's
     * advertised buffer. Unset, it depends on the provider: {@link #sendThresholdDefault}.
     */
    public static final String SEND_THRESHOLD_PROP_NAME = "dkv.raas.send.threshold";
    /**
     * shm: WRITE_WITH_IMM was 3-14% faster than SEND at every size from 64 B up over DC (the default
     * path), so messages never go as SEND by size ({@code ./dkv bench raas}, docs/BENCHMARKS.md).
     */
    public static final int SEND_THRESHOLD_SHM_DEFAULT = 0;
    /** tcp: the two ways tie within the noise up to 2 KiB; SEND is the cheaper for the receiver. */
    public static final int SEND_THRESHOLD_TCP_DEFAULT = 2048;
    /** verbs (a real RNIC): not measured on the machines this was built on; a common inline-and-SEND bound. */
    public static final int SEND_THRESHOLD_VERBS_DEFAULT = 2048;

    /**
     * Sends up to this size are copied into registered memory, larger ones use the caller's memory
     * registered (and cached). Unset, it depends on the provider: {@link #copyThresholdDefault}.
     */
    public static final String COPY_THRESHOLD_PROP_NAME = "dkv.raas.copy.threshold";
    /**
     * shm: sending from the caller's (cached) registration won from 128-256 B up on both paths, by
     * under 6% below 4 KiB and by 8-40% above; registrations are cached by address and never
     * evicted, so registering every buffer from 128 B on would let an application that does not
     * reuse its buffers grow the cache without end: 4 KiB keeps most of the gain.
     */
    public static final int COPY_THRESHOLD_SHM_DEFAULT = 4096;
    /** tcp: the two tie up to 8 KiB; above, the caller's registration was ahead more often. */
    public static final int COPY_THRESHOLD_TCP_DEFAULT = 8192;
    /** verbs (a real RNIC): not measured here; registering costs microseconds on hardware, so copy more. */
    public static final int COPY_THRESHOLD_VERBS_DEFAULT = 16 * 1024;

    /**
     * @param provider a verbs provider name.
     * @return the SEND threshold measured for it.
     */
    public static int sendThresholdDefault(final String provider)
    {
        return switch (provider)
        {
            case "shm" -> SEND_THRESHOLD_SHM_DEFAULT;
            case "tcp" -> SEND_THRESHOLD_TCP_DEFAULT;
            default -> SEND_THRESHOLD_VERBS_DEFAULT;
        };
    }

    /**
     * @param provider a verbs provider name.
     * @return the copy threshold measured for it.
     */
    public static int copyThresholdDefault(final String provider)
    {
        return switch (provider)
        {
            case "shm" -> COPY_THRESHOLD_SHM_DEFAULT;
            case "tcp" -> COPY_THRESHOLD_TCP_DEFAULT;
            default -> COPY_THRESHOLD_VERBS_DEFAULT;
        };
    }

    /** How long a synchronous call waits for its completion, in milliseconds. */
    public static final String TIMEOUT_MS_PROP_NAME = "dkv.raas.timeout.ms";
    public static final int TIMEOUT_MS_DEFAULT = 5000;

    /** Name of the standalone driver applications attach to. */
    /** The class an attaching application asks to be served in: latency or bulk (unset: the driver's default). */
    public static final String CLIENT_CLASS_PROP_NAME = "dkv.raas.client.class";
    /** The weight an attaching application asks for (0: the driver's default). */
    public static final String CLIENT_WEIGHT_PROP_NAME = "dkv.raas.client.weight";
    /** Whether a standalone driver serves attached applications by class and weight (else in arrival order). */
    public static final String ISOLATION_PROP_NAME = "dkv.raas.isolation";
    public static final boolean ISOLATION_DEFAULT = true;
    /** The class of applications that attach without asking for one. */
    public static final String DEFAULT_CLASS_PROP_NAME = "dkv.raas.default.class";
    public static final String DEFAULT_CLASS_DEFAULT = "latency";
    /** The weight of applications that attach without asking for one: bulk requests taken per duty cycle. */
    public static final String DEFAULT_WEIGHT_PROP_NAME = "dkv.raas.default.weight";
    public static final int DEFAULT_WEIGHT_DEFAULT = 1;
    public static final int MAX_WEIGHT = 1024;

    public static final String DRIVER_NAME_PROP_NAME = "dkv.raas.driver.name";
    public static final String DRIVER_NAME_DEFAULT = "default";

    /** A client of a standalone driver that shows no sign of life this long is removed. */
    public static final String CLIENT_TIMEOUT_MS_PROP_NAME = "dkv.raas.client.timeout.ms";
    public static final int CLIENT_TIMEOUT_MS_DEFAULT = 5000;

    /**
     * A standalone driver whose process lives but that shows no sign of life this long is dead to its clients (one
     * whose process exited is dead at once). A long-lived application behind the driver may want more: on a host whose
     * two cores are overloaded, a live driver was seen to miss its heartbeats for over 3 s (a compute node behind one
     * takes 10 s, {@code ComputeNodeConfiguration.ATTACHED_DRIVER_TIMEOUT_MS}).
     */
    public static final String DRIVER_TIMEOUT_MS_PROP_NAME = "dkv.raas.driver.timeout.ms";
    public static final int DRIVER_TIMEOUT_MS_DEFAULT = 3000;

    /** Bytes of each attached client's data area, shared with the driver. */
    public static final String CLIENT_DATA_BYTES_PROP_NAME = "dkv.raas.client.data.bytes";
    public static final int CLIENT_DATA_BYTES_DEFAULT = 16 * 1024 * 1024;

    /** Bytes of the ring clients write commands into (and of each client's response ring). */
    public static final String COMMAND_RING_BYTES_PROP_NAME = "dkv.raas.command.ring.bytes";
    public static final int COMMAND_RING_BYTES_DEFAULT = 1024 * 1024;

    /**
     * How the embedded driver's Worker and Poller agents wait for work ({@link io.dkv.agent.IdleStrategies}):
     * back off to parking by default, so that the processes of a small host share its cores.
     */
    public static final String WORKER_IDLE_STRATEGY_PROP_NAME = "dkv.raas.worker.idle.strategy";
    public static final String POLLER_IDLE_STRATEGY_PROP_NAME = "dkv.raas.poller.idle.strategy";
    public static final String AGENT_IDLE_STRATEGY_DEFAULT = io.dkv.agent.IdleStrategies.BACKOFF_DEFAULT;

    /**
     * How a standalone driver's conductor waits for its clients' commands: it spins, then sleeps on the cnc file's
     * doorbell, which a client rings with each command (so it answers at once), for at most a tenth of the park of
     * the agents above (a peer's message wakes nobody). Never yields: with 1,000 yields before parking (as it
     * did) a node behind the driver stalled 200-500 ms on 2 cores while another JVM started.
     */
    public static final String CONDUCTOR_IDLE_STRATEGY_PROP_NAME = "dkv.raas.conductor.idle.strategy";
    public static final String CONDUCTOR_IDLE_STRATEGY_DEFAULT = "doorbell:100,1000,100000";

    /** Bytes of a standalone driver's error log in its cnc file (distinct errors, each with its stack trace). */
    public static final String ERROR_LOG_BYTES_PROP_NAME = "dkv.raas.error.log.bytes";
    public static final int ERROR_LOG_BYTES_DEFAULT = 1024 * 1024;

    /** Counters a standalone driver's counters file holds at most (the driver's own need fewer than 32). */
    public static final String MAX_COUNTERS_PROP_NAME = "dkv.raas.counters.max";
    public static final int MAX_COUNTERS_DEFAULT = io.dkv.agent.CountersFileDescriptor.MAX_COUNTERS_DEFAULT;
    /** The fewest counters a driver's file may hold: room for the driver's own, and for those it may add. */
    public static final int MIN_COUNTERS = 32;

    private RaasConfiguration()
    {
    }
}

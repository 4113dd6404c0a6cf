package io.dkv.compute;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.clock.Clocks;
import io.dkv.clock.CommonContext;
import io.dkv.compute.limits.MemoryUnits;
import io.dkv.raas.Raas;
import io.netty.util.internal.PlatformDependent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.SystemEpochNanoClock;

import java.util.List;
import java.util.function.Consumer;

import static io.dkv.compute.ComputeNodeConfiguration.*;

/**
 * How a compute node is made: where it listens, its bounds on what peers can make it hold, its password, and the store
 * it serves (a RaaS handle it makes its client over, or a client given as is).
 *
 * <p>{@link #epochClock()} is the node's wall clock: its uptime, and its own client's (what that judges expiry by).
 * {@link #nanoClock()} is what the node measures durations by: each command's, the command rate's sampling
 * intervals, the CPU utilization's window, and its own client's operations. Left unset, the process's
 * ({@link io.dkv.clock.Clocks}).
 */
public final class ComputeNodeContext extends CommonContext<ComputeNodeContext>
{
    /** Ten intervals of 10 ms at least: shorter ones would be mostly the rotation's own cost. */
    private static final long MIN_METRICS_WINDOW_MS = 100;

    private int port = Integer.getInteger(PORT_PROP_NAME, PORT_DEFAULT);
    private String bindAddress = System.getProperty(BIND_PROP_NAME, BIND_DEFAULT);
    private int maxClients = Integer.getInteger(MAX_CLIENTS_PROP_NAME, MAX_CLIENTS_DEFAULT);
    private int maxBulkBytes = Integer.getInteger(MAX_BULK_PROP_NAME, MAX_BULK_DEFAULT);
    private int maxArgs = Integer.getInteger(MAX_ARGS_PROP_NAME, MAX_ARGS_DEFAULT);
    private long maxCommandBytes = Long.getLong(MAX_COMMAND_PROP_NAME, MAX_COMMAND_DEFAULT);
    private long partialTimeoutMs = Long.getLong(PARTIAL_TIMEOUT_PROP_NAME, PARTIAL_TIMEOUT_DEFAULT);
    private long piecesSweepMs = Long.getLong(PIECES_SWEEP_PROP_NAME, PIECES_SWEEP_DEFAULT);
    private int ioThreads = Integer.getInteger(IO_THREADS_PROP_NAME, IO_THREADS_DEFAULT);
    private long drainTimeoutMs = Long.getLong(DRAIN_TIMEOUT_PROP_NAME, DRAIN_TIMEOUT_DEFAULT);
    private long meshCallTimeoutMs = Long.getLong(MESH_CALL_TIMEOUT_PROP_NAME, MESH_CALL_TIMEOUT_DEFAULT);
    private int warmupRounds = Integer.getInteger(WARMUP_ROUNDS_PROP_NAME, WARMUP_ROUNDS_DEFAULT);
    private String asyncCommands = System.getProperty(ASYNC_COMMANDS_PROP_NAME, ASYNC_COMMANDS_DEFAULT);
    private boolean reusePort = Boolean.parseBoolean(
        System.getProperty(REUSE_PORT_PROP_NAME, Boolean.toString(REUSE_PORT_DEFAULT)));
    private int metricsPort = Integer.getInteger(METRICS_PORT_PROP_NAME, METRICS_PORT_DEFAULT);
    private long metricsWindowMs = Long.getLong(METRICS_WINDOW_PROP_NAME, METRICS_WINDOW_DEFAULT);
    private long outputLimitBytes = Long.getLong(OUTPUT_LIMIT_PROP_NAME, OUTPUT_LIMIT_DEFAULT);
    private long clientsMemoryBytes = Long.getLong(CLIENTS_MEMORY_PROP_NAME, CLIENTS_MEMORY_DEFAULT);
    private int writeHighWaterBytes = Integer.getInteger(WRITE_HIGH_WATER_PROP_NAME, WRITE_HIGH_WATER_DEFAULT);
    private long authFailureDelayMs = Long.getLong(AUTH_FAILURE_DELAY_PROP_NAME, AUTH_FAILURE_DELAY_DEFAULT);
    private long authFailureDelayMaxMs = Long.getLong(AUTH_FAILURE_DELAY_MAX_PROP_NAME, AUTH_FAILURE_DELAY_MAX_DEFAULT);
    private int authFailuresMax = Integer.getInteger(AUTH_FAILURES_MAX_PROP_NAME, AUTH_FAILURES_MAX_DEFAULT);
    private String appendOnly = System.getProperty(APPENDONLY_PROP_NAME);
    private String appendFsync = System.getProperty(APPENDFSYNC_PROP_NAME);
    private String maxMemory = System.getProperty(MAXMEMORY_PROP_NAME);
    private boolean appendOnlyFallback = Boolean.parseBoolean(
        System.getProperty(APPENDONLY_FALLBACK_PROP_NAME, Boolean.toString(APPENDONLY_FALLBACK_DEFAULT)));
    private Consumer<String> log = System.err::println;
    private EpochNanoClock epochNanoClock;
    private String requirePass;
    private Raas raas;
    private boolean ownsRaas;
    private KvClient client;
    private KvClientContext clientContext = new KvClientContext();
    private boolean concluded;

    /**
     * Check the settings together, fill in the clocks left unset with the process's, and hand them to the client
     * the node makes. Once only.
     *
     * @return this.
     */
    public ComputeNodeContext conclude()
    {
        if (concluded)
        {
            throw new IllegalStateException("context already concluded");
        }
        super.conclude();
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("port must be 0 to 65535, got " + port);
        }
        if (metricsPort < -1 || metricsPort > 65_535)
        {
            throw new IllegalArgumentException("metricsPort must be -1 (none), 0 (a free one) or a port to 65535, " +
                "got " + metricsPort);
        }
        if (metricsWindowMs < MIN_METRICS_WINDOW_MS)
        {
            throw new IllegalArgumentException("metricsWindowMs must be at least " + MIN_METRICS_WINDOW_MS +
                " (ten intervals of 10 ms), got " + metricsWindowMs);
        }
        if (maxClients < 1 || maxBulkBytes < 1 || maxArgs < 1 || maxCommandBytes < maxBulkBytes)
        {
            throw new IllegalArgumentException("bounds must be positive and a command must hold a bulk: maxClients=" +
                maxClients + " maxBulkBytes=" + maxBulkBytes + " maxArgs=" + maxArgs + " maxCommandBytes=" +
                maxCommandBytes);
        }
        if (piecesSweepMs < 0)
        {
            throw new IllegalArgumentException("piecesSweepMs (" + PIECES_SWEEP_PROP_NAME + ") is 0 (never) or " +
                "more; it is " + piecesSweepMs);
        }
        if (!List.of("auto", "on", "off").contains(asyncCommands))
        {
            throw new IllegalArgumentException("asyncCommands (" + ASYNC_COMMANDS_PROP_NAME + ") is auto, on or off; " +
                "it is '" + asyncCommands + "'");
        }
        if (partialTimeoutMs <= 0 || ioThreads < 1 || meshCallTimeoutMs <= 0 || drainTimeoutMs < 0 ||
            warmupRounds < 0)
        {
            throw new IllegalArgumentException("partialTimeoutMs=" + partialTimeoutMs + " ioThreads=" + ioThreads +
                " meshCallTimeoutMs=" + meshCallTimeoutMs + " drainTimeoutMs=" + drainTimeoutMs + " warmupRounds=" +
                warmupRounds + ": the first three must be positive, the others not negative");
        }
        if (clientsMemoryBytes < -1)
        {
            throw new IllegalArgumentException("clientsMemoryBytes must be -1 (half the direct memory), 0 (no bound) " +
                "or a number of bytes, got " + clientsMemoryBytes);
        }
        if (outputLimitBytes < 1 || writeHighWaterBytes < 2 || authFailureDelayMs < 0 ||
            authFailureDelayMaxMs < authFailureDelayMs || authFailuresMax < 1)
        {
            throw new IllegalArgumentException("outputLimitBytes=" + outputLimitBytes + " writeHighWaterBytes=" +
                writeHighWaterBytes + " authFailureDelayMs=" + authFailureDelayMs + " authFailureDelayMaxMs=" +
                authFailureDelayMaxMs + " authFailuresMax=" + authFailuresMax + ": the limit, the high water mark " +
                "(at least 2) and the failures must be positive, the delays not negative and the max at least the " +
                "first");
        }
        if (appendOnly != null && AppendFsync.parseYesNo(appendOnly) == null)
        {
            throw new IllegalArgumentException("appendonly (" + APPENDONLY_PROP_NAME + ") is yes or no; it is '" +
                appendOnly + "'");
        }
        if (maxMemory != null && MemoryUnits.parse(maxMemory) == null)
        {
            throw new IllegalArgumentException("maxmemory (" + MAXMEMORY_PROP_NAME + ") is a memory value (bytes, " +
                "or with a unit: 100mb, 2gb; 0: none); it is '" + maxMemory + "'");
        }
        if (appendFsync != null && AppendFsync.parse(appendFsync) == null)
        {
            throw new IllegalArgumentException("appendfsync (" + APPENDFSYNC_PROP_NAME + ") is one of " +
                AppendFsync.ACCEPTED + "; it is '" + appendFsync + "'");
        }
        if ((raas == null) == (client == null))
        {
            throw new IllegalArgumentException("a compute node serves either a RaaS handle (raas) or a client " +
                "(client), exactly one: raas=" + raas + " client=" + client);
        }
        if (requirePass != null && requirePass.isEmpty())
        {
            throw new IllegalArgumentException("an empty password would let anyone in: give none, or a non-empty one");
        }
        if (epochNanoClock == null)
        {
            // a harness's shifted wall clock where there is one, else the system's to the nanosecond
            final EpochClock epoch = epochClock();
            epochNanoClock = Clocks.controlled() ? () -> epoch.time() * 1_000_000L : SystemEpochNanoClock.INSTANCE;
        }
        if (raas != null)
        {
            // one process, one time: the client the node makes runs on the node's clocks
            clientContext.epochClock(epochClock()).nanoClock(nanoClock());
        }
        concluded = true;
        return this;
    }

    public int port()
    {
        return port;
    }

    public ComputeNodeContext port(final int port)
    {
        this.port = port;
        return this;
    }

    public String bindAddress()
    {
        return bindAddress;
    }

    public ComputeNodeContext bindAddress(final String bindAddress)
    {
        this.bindAddress = bindAddress;
        return this;
    }

    public int maxClients()
    {
        return maxClients;
    }

    public ComputeNodeContext maxClients(final int maxClients)
    {
        this.maxClients = maxClients;
        return this;
    }

    public int maxBulkBytes()
    {
        return maxBulkBytes;
    }

    public ComputeNodeContext maxBulkBytes(final int maxBulkBytes)
    {
        this.maxBulkBytes = maxBulkBytes;
        return this;
    }

    public int maxArgs()
    {
        return maxArgs;
    }

    public ComputeNodeContext maxArgs(final int maxArgs)
    {
        this.maxArgs = maxArgs;
        return this;
    }

    public long maxCommandBytes()
    {
        return maxCommandBytes;
    }

    public ComputeNodeContext maxCommandBytes(final long maxCommandBytes)
    {
        this.maxCommandBytes = maxCommandBytes;
        return this;
    }

    /** @return how often pieces nobody published are swept, and how old they must be; 0: never. */
    public long piecesSweepMs()
    {
        return piecesSweepMs;
    }

    public ComputeNodeContext piecesSweepMs(final long piecesSweepMs)
    {
        this.piecesSweepMs = piecesSweepMs;
        return this;
    }

    public long partialTimeoutMs()
    {
        return partialTimeoutMs;
    }

    public ComputeNodeContext partialTimeoutMs(final long partialTimeoutMs)
    {
        this.partialTimeoutMs = partialTimeoutMs;
        return this;
    }

    /** @return the wall clock in nanoseconds that stamps when a connection blocked (pool-wide turns). */
    public EpochNanoClock epochNanoClock()
    {
        return epochNanoClock;
    }

    /**
     * @param epochNanoClock the wall clock in nanoseconds that stamps when a connection blocked: the pool serves a
     *                       key's waiters in the order of their stamps, so the nodes' clocks are to agree (NTP).
     * @return this.
     */
    public ComputeNodeContext epochNanoClock(final EpochNanoClock epochNanoClock)
    {
        this.epochNanoClock = epochNanoClock;
        return this;
    }

    public int ioThreads()
    {
        return ioThreads;
    }

    public ComputeNodeContext ioThreads(final int ioThreads)
    {
        this.ioThreads = ioThreads;
        return this;
    }

    public long drainTimeoutMs()
    {
        return drainTimeoutMs;
    }

    public ComputeNodeContext drainTimeoutMs(final long drainTimeoutMs)
    {
        this.drainTimeoutMs = drainTimeoutMs;
        return this;
    }

    public long meshCallTimeoutMs()
    {
        return meshCallTimeoutMs;
    }

    /** @param meshCallTimeoutMs how long a call to another compute node waits for its answer. */
    public ComputeNodeContext meshCallTimeoutMs(final long meshCallTimeoutMs)
    {
        this.meshCallTimeoutMs = meshCallTimeoutMs;
        return this;
    }

    public boolean reusePort()
    {
        return reusePort;
    }

    /**
     * @param reusePort bind the RESP port with SO_REUSEPORT: several nodes of this host (each asking for it) share the
     *                  port and the kernel spreads new connections among them.
     */
    public ComputeNodeContext reusePort(final boolean reusePort)
    {
        this.reusePort = reusePort;
        return this;
    }

    /** @return the metrics endpoint's port: -1 for none, 0 for a free one. */
    public int metricsPort()
    {
        return metricsPort;
    }

    /** @param metricsPort port of {@code GET /metrics} on the RESP bind address: -1 for none, 0 for a free one. */
    public ComputeNodeContext metricsPort(final int metricsPort)
    {
        this.metricsPort = metricsPort;
        return this;
    }

    public long metricsWindowMs()
    {
        return metricsWindowMs;
    }

    /** @param metricsWindowMs the recent window of the duration quantiles and the CPU utilization. */
    public ComputeNodeContext metricsWindowMs(final long metricsWindowMs)
    {
        this.metricsWindowMs = metricsWindowMs;
        return this;
    }

    public long outputLimitBytes()
    {
        return outputLimitBytes;
    }

    /**
     * @param outputLimitBytes reply bytes a connection may have pending at most (redis's client-output-buffer-limit
     *                         normal, hard): one past it is closed, counted and logged.
     */
    public ComputeNodeContext outputLimitBytes(final long outputLimitBytes)
    {
        this.outputLimitBytes = outputLimitBytes;
        return this;
    }

    /** @return reply bytes pending across the node's connections at most (maxmemory-clients); 0: no bound. */
    public long clientsMemoryBytes()
    {
        return clientsMemoryBytes < 0 ? PlatformDependent.maxDirectMemory() / 2 : clientsMemoryBytes;
    }

    /**
     * @param clientsMemoryBytes reply bytes pending across the node's connections at most (redis's maxmemory-clients):
     *                           past it the connections holding most are closed; 0: no bound; -1: half the direct
     *                           memory Netty may take.
     */
    public ComputeNodeContext clientsMemoryBytes(final long clientsMemoryBytes)
    {
        this.clientsMemoryBytes = clientsMemoryBytes;
        return this;
    }

    public int writeHighWaterBytes()
    {
        return writeHighWaterBytes;
    }

    /**
     * @param writeHighWaterBytes reply bytes pending at which a connection stops reading and running its requests;
     *                            it goes on once its peer took them down to half as many.
     */
    public ComputeNodeContext writeHighWaterBytes(final int writeHighWaterBytes)
    {
        this.writeHighWaterBytes = writeHighWaterBytes;
        return this;
    }

    public long authFailureDelayMs()
    {
        return authFailureDelayMs;
    }

    /** @param authFailureDelayMs how long a connection's first failed AUTH reply is held; each failure doubles it. */
    public ComputeNodeContext authFailureDelayMs(final long authFailureDelayMs)
    {
        this.authFailureDelayMs = authFailureDelayMs;
        return this;
    }

    public long authFailureDelayMaxMs()
    {
        return authFailureDelayMaxMs;
    }

    /** @param authFailureDelayMaxMs the longest a failed AUTH's reply is held. */
    public ComputeNodeContext authFailureDelayMaxMs(final long authFailureDelayMaxMs)
    {
        this.authFailureDelayMaxMs = authFailureDelayMaxMs;
        return this;
    }

    public int authFailuresMax()
    {
        return authFailuresMax;
    }

    /** @param authFailuresMax failed AUTHs after which a connection is closed. */
    public ComputeNodeContext authFailuresMax(final int authFailuresMax)
    {
        this.authFailuresMax = authFailuresMax;
        return this;
    }

    public Consumer<String> log()
    {
        return log;
    }

    /**
     * @param log where the node's rate-limited lines about peers go (failed AUTHs, connections closed at the output
     *            limit); standard error unless told otherwise.
     */
    public ComputeNodeContext log(final Consumer<String> log)
    {
        this.log = log;
        return this;
    }

    public int warmupRounds()
    {
        return warmupRounds;
    }

    /** @return auto, on or off: whether GET, SET and INCR go out asynchronously ({@link #asyncCommands(String)}). */
    public String asyncCommands()
    {
        return asyncCommands;
    }

    /**
     * @param asyncCommands {@code on}: GET, SET and INCR go out through the client's asynchronous forms, a loop
     *                      serving others while they travel; {@code off}: each runs on its loop to its end;
     *                      {@code auto} (the default): on where the client's requests wait on a wire or a NIC.
     */
    public ComputeNodeContext asyncCommands(final String asyncCommands)
    {
        this.asyncCommands = asyncCommands;
        return this;
    }

    /** @param warmupRounds rounds of requests each event loop runs before the port accepts; 0 for none. */
    public ComputeNodeContext warmupRounds(final int warmupRounds)
    {
        this.warmupRounds = warmupRounds;
        return this;
    }

    /** @return the password AUTH must give, or null: none required. */
    public String requirePass()
    {
        return requirePass;
    }

    public ComputeNodeContext requirePass(final String requirePass)
    {
        this.requirePass = requirePass;
        return this;
    }

    /** @return yes or no, or null: unset, as the client's durability says (any but none: yes). */
    public String appendOnly()
    {
        return appendOnly;
    }

    /**
     * @param appendOnly redis's appendonly: {@code yes}, each write tells its memory nodes as {@link #appendFsync}
     *                   says; {@code no}, memory only. Null: as the client's durability says. CONFIG SET changes it
     *                   while the node runs.
     * @return this.
     */
    public ComputeNodeContext appendOnly(final String appendOnly)
    {
        this.appendOnly = appendOnly;
        return this;
    }

    /** @return the pool's maxmemory to set at start, as redis writes it; null: none given, the pool's stands. */
    public String maxMemory()
    {
        return maxMemory;
    }

    /**
     * @param maxMemory redis's maxmemory for the pool, as redis writes it ({@code 100mb}; 0: none), set on every memory
     *                  node at the node's start; null: left as the pool has it. CONFIG SET changes it while it runs.
     * @return this for a fluent API.
     */
    public ComputeNodeContext maxMemory(final String maxMemory)
    {
        this.maxMemory = maxMemory;
        return this;
    }

    /** @return always, everysec or no, or null: unset, as the client's durability says (sync: always). */
    public String appendFsync()
    {
        return appendFsync;
    }

    /**
     * @param appendFsync redis's appendfsync ({@link AppendFsync}): what a write's OK promises while appendonly is
     *                    yes. Null: as the client's durability says. CONFIG SET changes it while the node runs.
     * @return this.
     */
    public ComputeNodeContext appendFsync(final String appendFsync)
    {
        this.appendFsync = appendFsync;
        return this;
    }

    public boolean appendOnlyFallback()
    {
        return appendOnlyFallback;
    }

    /**
     * @param appendOnlyFallback true: over a memory node that keeps nothing on disk the node runs with appendonly no
     *                           and says so in one line ({@link #log()}); false: its start fails naming that node.
     * @return this.
     */
    public ComputeNodeContext appendOnlyFallback(final boolean appendOnlyFallback)
    {
        this.appendOnlyFallback = appendOnlyFallback;
        return this;
    }

    public Raas raas()
    {
        return raas;
    }

    /**
     * @param raas the node's RaaS handle, registered with the MetaServer as role compute; the node makes its client
     *             over it, of the memory nodes the directory lists.
     * @param owns true when the node closes it on close, which deregisters the node.
     */
    public ComputeNodeContext raas(final Raas raas, final boolean owns)
    {
        this.raas = raas;
        this.ownsRaas = owns;
        return this;
    }

    public boolean ownsRaas()
    {
        return ownsRaas;
    }

    public KvClient client()
    {
        return client;
    }

    /** @param client a client to serve, which the node does not close (tests, or a process that shares one). */
    public ComputeNodeContext client(final KvClient client)
    {
        this.client = client;
        return this;
    }

    public KvClientContext clientContext()
    {
        return clientContext;
    }

    /** @param clientContext how the node's own client is made over {@link #raas()}, on the node's clocks. */
    public ComputeNodeContext clientContext(final KvClientContext clientContext)
    {
        this.clientContext = clientContext;
        return this;
    }
}

package io.dkv.raas;

import io.dkv.agent.IdleStrategies;
import io.dkv.clock.Clocks;
import io.dkv.clock.CommonContext;
import io.dkv.verbs.VerbsContext;
import org.agrona.concurrent.status.CountersManager;

import java.util.concurrent.ThreadLocalRandom;

import static io.dkv.raas.RaasConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.longProperty;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * What a RaaS driver is started with. Starts from {@link RaasConfiguration} (system properties,
 * then defaults); every setter is fluent.
 *
 * <p>A driver (embedded or standalone), an attached client and the verbs device under a driver read the time only
 * from this context's {@link #epochClock()} and {@link #nanoClock()}, so a test can drive time; the device runs on
 * the same clocks ({@link #conclude()} hands them to the {@link VerbsContext}). Left unset, they are those set on
 * the verbs context alone, else the process's ({@link Clocks}). The wall clock times the heartbeats of a standalone
 * driver and its clients and how long either has been silent, a node's epoch, the clock requests and the pool's
 * housekeeping read; the monotonic clock, the deadline of every call that waits (a synchronous request, a receive,
 * an accept, a remote malloc, a command to a standalone driver) and the Worker's housekeeping period, and what a
 * caller of the handle measures its own deadlines by ({@link Raas#nanoClock()}).
 */
public final class RaasContext extends CommonContext<RaasContext>
{
    private VerbsContext verbs = new VerbsContext();
    private long nodeId = longProperty(NODE_ID_PROP_NAME, 0);
    private int role = NodeRecord.ROLE_CLIENT;
    private int dciCount = intProperty(DCI_COUNT_PROP_NAME, DCI_COUNT_DEFAULT);
    private int qpDepth = intProperty(QP_DEPTH_PROP_NAME, QP_DEPTH_DEFAULT);
    private int rcPoolSize = intProperty(RC_POOL_SIZE_PROP_NAME, RC_POOL_SIZE_DEFAULT);
    private int rcPromoteRequests = intProperty(RC_PROMOTE_REQUESTS_PROP_NAME, RC_PROMOTE_REQUESTS_DEFAULT);
    private int rcPromoteWindowMs = intProperty(RC_PROMOTE_WINDOW_MS_PROP_NAME, RC_PROMOTE_WINDOW_MS_DEFAULT);
    private int rcIdleMs = intProperty(RC_IDLE_MS_PROP_NAME, RC_IDLE_MS_DEFAULT);
    private int qpStallMs = intProperty(QP_STALL_MS_PROP_NAME, QP_STALL_MS_DEFAULT);
    private int connectionCredits = intProperty(CONNECTION_CREDITS_PROP_NAME, CONNECTION_CREDITS_DEFAULT);
    private int requestSlots = intProperty(REQUEST_SLOTS_PROP_NAME, REQUEST_SLOTS_DEFAULT);
    private int stagingBytes = intProperty(STAGING_BYTES_PROP_NAME, STAGING_BYTES_DEFAULT);
    private int syncLanes = intProperty(SYNC_LANES_PROP_NAME, SYNC_LANES_DEFAULT);
    private String rcOnly = System.getProperty(RC_ONLY_PROP_NAME, RC_ONLY_DEFAULT);
    private int receiveBuffers = intProperty(RECEIVE_BUFFERS_PROP_NAME, RECEIVE_BUFFERS_DEFAULT);
    private int receiveBufferBytes = intProperty(RECEIVE_BUFFER_BYTES_PROP_NAME, RECEIVE_BUFFER_BYTES_DEFAULT);
    private int messageCredits = intProperty(MESSAGE_CREDITS_PROP_NAME, MESSAGE_CREDITS_DEFAULT);
    private int advertisedBytes = intProperty(ADVERTISED_BYTES_PROP_NAME, ADVERTISED_BYTES_DEFAULT);
    private long remoteMallocBytes = longProperty(REMOTE_MALLOC_BYTES_PROP_NAME, REMOTE_MALLOC_BYTES_DEFAULT);
    private int maxRoutes = intProperty(MAX_ROUTES_PROP_NAME, MAX_ROUTES_DEFAULT);
    private int inboundPerPeer = intProperty(INBOUND_PER_PEER_PROP_NAME, INBOUND_PER_PEER_DEFAULT);
    private int inboundMax = intProperty(INBOUND_MAX_PROP_NAME, INBOUND_MAX_DEFAULT);
    private int unusedPerPeer = intProperty(UNUSED_PER_PEER_PROP_NAME, UNUSED_PER_PEER_DEFAULT);
    private int unusedMax = intProperty(UNUSED_MAX_PROP_NAME, UNUSED_MAX_DEFAULT);
    private int unusedMs = intProperty(UNUSED_MS_PROP_NAME, UNUSED_MS_DEFAULT);
    private long inboundAdvertBytes = longProperty(INBOUND_ADVERT_BYTES_PROP_NAME, INBOUND_ADVERT_BYTES_DEFAULT);
    /** -1 until set: conclude() takes the provider's measured default. */
    private int sendThreshold = intProperty(SEND_THRESHOLD_PROP_NAME, -1);
    private int copyThreshold = intProperty(COPY_THRESHOLD_PROP_NAME, -1);
    private int timeoutMs = intProperty(TIMEOUT_MS_PROP_NAME, TIMEOUT_MS_DEFAULT);
    private boolean startAgents = true;
    private long dcKey;
    private java.nio.file.Path cncDirectory;
    private String driverName = System.getProperty(DRIVER_NAME_PROP_NAME, DRIVER_NAME_DEFAULT);
    private long attachAs;
    private String clientClass = System.getProperty(CLIENT_CLASS_PROP_NAME, "");
    private int clientWeight = intProperty(CLIENT_WEIGHT_PROP_NAME, 0);
    private boolean isolation =
        Boolean.parseBoolean(System.getProperty(ISOLATION_PROP_NAME, Boolean.toString(ISOLATION_DEFAULT)));
    private String defaultClass = System.getProperty(DEFAULT_CLASS_PROP_NAME, DEFAULT_CLASS_DEFAULT);
    private int defaultWeight = intProperty(DEFAULT_WEIGHT_PROP_NAME, DEFAULT_WEIGHT_DEFAULT);
    private int clientTimeoutMs = intProperty(CLIENT_TIMEOUT_MS_PROP_NAME, CLIENT_TIMEOUT_MS_DEFAULT);
    private int driverTimeoutMs = intProperty(DRIVER_TIMEOUT_MS_PROP_NAME, DRIVER_TIMEOUT_MS_DEFAULT);
    private int clientDataBytes = intProperty(CLIENT_DATA_BYTES_PROP_NAME, CLIENT_DATA_BYTES_DEFAULT);
    private int commandRingBytes = intProperty(COMMAND_RING_BYTES_PROP_NAME, COMMAND_RING_BYTES_DEFAULT);
    private int errorLogBytes = intProperty(ERROR_LOG_BYTES_PROP_NAME, ERROR_LOG_BYTES_DEFAULT);
    private int maxCounters = intProperty(MAX_COUNTERS_PROP_NAME, MAX_COUNTERS_DEFAULT);
    /** null until set: the driver keeps its counters in memory of its own. */
    private CountersManager countersManager;
    private String workerIdleStrategy = System.getProperty(WORKER_IDLE_STRATEGY_PROP_NAME, AGENT_IDLE_STRATEGY_DEFAULT);
    private String pollerIdleStrategy = System.getProperty(POLLER_IDLE_STRATEGY_PROP_NAME, AGENT_IDLE_STRATEGY_DEFAULT);
    private String conductorIdleStrategy =
        System.getProperty(CONDUCTOR_IDLE_STRATEGY_PROP_NAME, CONDUCTOR_IDLE_STRATEGY_DEFAULT);

    /**
     * Check the settings together and fill in what was left to choose.
     *
     * @return this.
     */
    public RaasContext conclude()
    {
        // one setting governs the process: the driver's clocks are its device's (one set on the verbs context
        // alone is taken for both; with neither, the process's)
        if (epochClock() == null)
        {
            epochClock(verbs.epochClock());
        }
        if (nanoClock() == null)
        {
            nanoClock(verbs.nanoClock());
        }
        super.conclude();
        verbs.epochClock(epochClock()).nanoClock(nanoClock());
        verbs.conclude();
        if (nodeId == 0)
        {
            nodeId = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        }
        requireRange("dciCount", dciCount, 1, 256);
        requireRange("qpDepth", qpDepth, 4, 16 * 1024);
        requireRange("rcPoolSize", rcPoolSize, 0, 100_000);
        requireRange("rcPromoteRequests", rcPromoteRequests, 0, Integer.MAX_VALUE);
        requireRange("rcPromoteWindowMs", rcPromoteWindowMs, 1, 600_000);
        requireRange("rcIdleMs", rcIdleMs, 1, 3_600_000);
        requireRange("qpStallMs", qpStallMs, 10, 3_600_000);
        requireRange("connectionCredits", connectionCredits, 1, 16 * 1024);
        requireRange("requestSlots", requestSlots, 16, 1 << 20);
        requireRange("stagingBytes", stagingBytes, 8, 1 << 20);
        requireRange("syncLanes", syncLanes, 0, 4096);
        if (!"auto".equals(rcOnly) && !"true".equals(rcOnly) && !"false".equals(rcOnly))
        {
            throw new IllegalArgumentException("rcOnly '" + rcOnly + "' must be auto, true or false");
        }
        requireRange("receiveBuffers", receiveBuffers, 16, 1 << 20);
        requireRange("receiveBufferBytes", receiveBufferBytes, 256, verbs.maxSendSize());
        requireRange("messageCredits", messageCredits, 1, receiveBuffers);
        requireRange("advertisedBytes", advertisedBytes, 4096, 1 << 30);
        requireRange("remoteMallocBytes", remoteMallocBytes, 0, Long.MAX_VALUE);
        requireRange("maxRoutes", maxRoutes, 16, 1 << 24);
        // a driver has 2^20 - 1 vQPNs in all; the unused bounds sit inside the inbound ones
        requireRange("inboundMax", inboundMax, 1, (1 << 20) - 1);
        requireRange("inboundPerPeer", inboundPerPeer, 1, inboundMax);
        requireRange("unusedMax", unusedMax, 1, inboundMax);
        requireRange("unusedPerPeer", unusedPerPeer, 1, Math.min(unusedMax, inboundPerPeer));
        requireRange("unusedMs", unusedMs, 10, 3_600_000);
        requireRange("inboundAdvertBytes", inboundAdvertBytes, 0, 1L << 40);
        if (sendThreshold < 0)
        {
            sendThreshold = Math.min(sendThresholdDefault(verbs.provider()), receiveBufferBytes - ControlHeader.LENGTH);
        }
        if (copyThreshold < 0)
        {
            copyThreshold = copyThresholdDefault(verbs.provider());
        }
        requireRange("sendThreshold", sendThreshold, 0, receiveBufferBytes - ControlHeader.LENGTH);
        requireRange("copyThreshold", copyThreshold, 0, Integer.MAX_VALUE);
        requireRange("timeoutMs", timeoutMs, 1, 3_600_000);
        requireRange("clientTimeoutMs", clientTimeoutMs, 10, 3_600_000);
        requireRange("driverTimeoutMs", driverTimeoutMs, 10, 3_600_000);
        requireRange("clientDataBytes", clientDataBytes, 64 * 1024, 1 << 30);
        if (Integer.bitCount(commandRingBytes) != 1 || commandRingBytes < 64 * 1024)
        {
            throw new IllegalArgumentException("commandRingBytes " + commandRingBytes +
                " must be a power of two of at least 65536");
        }
        if (!clientClass.isEmpty())
        {
            ServiceClass.parse(clientClass);
        }
        ServiceClass.parse(defaultClass);
        if (clientWeight < 0 || clientWeight > MAX_WEIGHT || defaultWeight < 1 || defaultWeight > MAX_WEIGHT)
        {
            throw new IllegalArgumentException("weights: client " + clientWeight + " (0 for the driver's default), " +
                "default " + defaultWeight + "; each 1 to " + MAX_WEIGHT);
        }
        if (driverName.isEmpty() || !driverName.matches("[A-Za-z0-9._-]+"))
        {
            throw new IllegalArgumentException("driver name '" + driverName +
                "' must be letters, digits, '.', '_' or '-'");
        }
        if (errorLogBytes < 4096 || errorLogBytes > (1 << 30) || (errorLogBytes & 7) != 0)
        {
            throw new IllegalArgumentException("errorLogBytes " + errorLogBytes + " must be a multiple of 8 in " +
                "4096..1073741824 (" + ERROR_LOG_BYTES_PROP_NAME + ")");
        }
        requireRange("maxCounters (" + MAX_COUNTERS_PROP_NAME + ")", maxCounters, MIN_COUNTERS, 1 << 16);
        // parsed here so that a wrong one fails the start, not an agent's thread
        IdleStrategies.require("workerIdleStrategy (" + WORKER_IDLE_STRATEGY_PROP_NAME + ")", workerIdleStrategy);
        IdleStrategies.require("pollerIdleStrategy (" + POLLER_IDLE_STRATEGY_PROP_NAME + ")", pollerIdleStrategy);
        IdleStrategies.require("conductorIdleStrategy (" + CONDUCTOR_IDLE_STRATEGY_PROP_NAME + ")",
            conductorIdleStrategy);
        return this;
    }

    public VerbsContext verbs()
    {
        return verbs;
    }

    public RaasContext verbs(final VerbsContext verbs)
    {
        this.verbs = verbs;
        return this;
    }

    public long nodeId()
    {
        return nodeId;
    }

    public RaasContext nodeId(final long nodeId)
    {
        this.nodeId = nodeId;
        return this;
    }

    public int role()
    {
        return role;
    }

    public RaasContext role(final int role)
    {
        this.role = role;
        return this;
    }

    public int dciCount()
    {
        return dciCount;
    }

    public RaasContext dciCount(final int dciCount)
    {
        this.dciCount = dciCount;
        return this;
    }

    public int qpDepth()
    {
        return qpDepth;
    }

    public RaasContext qpDepth(final int qpDepth)
    {
        this.qpDepth = qpDepth;
        return this;
    }

    public int rcPoolSize()
    {
        return rcPoolSize;
    }

    public RaasContext rcPoolSize(final int rcPoolSize)
    {
        this.rcPoolSize = rcPoolSize;
        return this;
    }

    public int rcPromoteRequests()
    {
        return rcPromoteRequests;
    }

    public RaasContext rcPromoteRequests(final int rcPromoteRequests)
    {
        this.rcPromoteRequests = rcPromoteRequests;
        return this;
    }

    public int rcPromoteWindowMs()
    {
        return rcPromoteWindowMs;
    }

    public RaasContext rcPromoteWindowMs(final int rcPromoteWindowMs)
    {
        this.rcPromoteWindowMs = rcPromoteWindowMs;
        return this;
    }

    /** @return how long a shared queue pair may make no progress before it is recycled. */
    public int qpStallMs()
    {
        return qpStallMs;
    }

    public RaasContext qpStallMs(final int qpStallMs)
    {
        this.qpStallMs = qpStallMs;
        return this;
    }

    public int rcIdleMs()
    {
        return rcIdleMs;
    }

    public RaasContext rcIdleMs(final int rcIdleMs)
    {
        this.rcIdleMs = rcIdleMs;
        return this;
    }

    public int connectionCredits()
    {
        return connectionCredits;
    }

    public RaasContext connectionCredits(final int connectionCredits)
    {
        this.connectionCredits = connectionCredits;
        return this;
    }

    public int requestSlots()
    {
        return requestSlots;
    }

    public RaasContext requestSlots(final int requestSlots)
    {
        this.requestSlots = requestSlots;
        return this;
    }

    public int stagingBytes()
    {
        return stagingBytes;
    }

    public RaasContext stagingBytes(final int stagingBytes)
    {
        this.stagingBytes = stagingBytes;
        return this;
    }

    /** @return "auto", "true" or "false": see {@link RaasConfiguration#RC_ONLY_PROP_NAME}. */
    public String rcOnly()
    {
        return rcOnly;
    }

    public RaasContext rcOnly(final String rcOnly)
    {
        this.rcOnly = rcOnly;
        return this;
    }

    /** @return whether a driver on this device runs RC-only: as asked, or for "auto" when it has no DC. */
    public boolean rcOnly(final io.dkv.verbs.Device device)
    {
        return "auto".equals(rcOnly) ? !device.supportsDc() : Boolean.parseBoolean(rcOnly);
    }

    public int syncLanes()
    {
        return syncLanes;
    }

    /** @param syncLanes threads that post and poll their synchronous requests themselves; 0 for none. */
    public RaasContext syncLanes(final int syncLanes)
    {
        this.syncLanes = syncLanes;
        return this;
    }

    public int receiveBuffers()
    {
        return receiveBuffers;
    }

    public RaasContext receiveBuffers(final int receiveBuffers)
    {
        this.receiveBuffers = receiveBuffers;
        return this;
    }

    public int receiveBufferBytes()
    {
        return receiveBufferBytes;
    }

    public RaasContext receiveBufferBytes(final int receiveBufferBytes)
    {
        this.receiveBufferBytes = receiveBufferBytes;
        return this;
    }

    public int messageCredits()
    {
        return messageCredits;
    }

    public RaasContext messageCredits(final int messageCredits)
    {
        this.messageCredits = messageCredits;
        return this;
    }

    /** @return routes to nodes the driver keeps at most. */
    public int maxRoutes()
    {
        return maxRoutes;
    }

    public RaasContext maxRoutes(final int maxRoutes)
    {
        this.maxRoutes = maxRoutes;
        return this;
    }

    /** @return bytes of this node's memory the driver allocates for peers that ask, in all (0: none). */
    public long remoteMallocBytes()
    {
        return remoteMallocBytes;
    }

    public RaasContext remoteMallocBytes(final long remoteMallocBytes)
    {
        this.remoteMallocBytes = remoteMallocBytes;
        return this;
    }

    public int advertisedBytes()
    {
        return advertisedBytes;
    }

    public RaasContext advertisedBytes(final int advertisedBytes)
    {
        this.advertisedBytes = advertisedBytes;
        return this;
    }

    /** @return inbound connections one peer (the address its CONNECTs claim) may hold; beyond, a CONNECT is refused. */
    public int inboundPerPeer()
    {
        return inboundPerPeer;
    }

    public RaasContext inboundPerPeer(final int inboundPerPeer)
    {
        this.inboundPerPeer = inboundPerPeer;
        return this;
    }

    /** @return inbound connections the driver may hold in all; beyond, a CONNECT is refused. */
    public int inboundMax()
    {
        return inboundMax;
    }

    public RaasContext inboundMax(final int inboundMax)
    {
        this.inboundMax = inboundMax;
        return this;
    }

    /** @return accepted but unused inbound connections one peer may hold; beyond, its oldest is reclaimed. */
    public int unusedPerPeer()
    {
        return unusedPerPeer;
    }

    public RaasContext unusedPerPeer(final int unusedPerPeer)
    {
        this.unusedPerPeer = unusedPerPeer;
        return this;
    }

    /** @return accepted but unused inbound connections the driver may hold in all; beyond, the oldest is reclaimed. */
    public int unusedMax()
    {
        return unusedMax;
    }

    public RaasContext unusedMax(final int unusedMax)
    {
        this.unusedMax = unusedMax;
        return this;
    }

    /** @return how long an inbound connection may stay unused after it was accepted before it is reclaimed. */
    public int unusedMs()
    {
        return unusedMs;
    }

    public RaasContext unusedMs(final int unusedMs)
    {
        this.unusedMs = unusedMs;
        return this;
    }

    /** @return bytes of advertised buffers inbound connections may hold in all. */
    public long inboundAdvertBytes()
    {
        return inboundAdvertBytes;
    }

    public RaasContext inboundAdvertBytes(final long inboundAdvertBytes)
    {
        this.inboundAdvertBytes = inboundAdvertBytes;
        return this;
    }

    /** @return the SEND threshold; before {@link #conclude()}, -1 when left to the provider's default. */
    public int sendThreshold()
    {
        return sendThreshold;
    }

    public RaasContext sendThreshold(final int sendThreshold)
    {
        this.sendThreshold = sendThreshold;
        return this;
    }

    /** @return the copy threshold; before {@link #conclude()}, -1 when left to the provider's default. */
    public int copyThreshold()
    {
        return copyThreshold;
    }

    public RaasContext copyThreshold(final int copyThreshold)
    {
        this.copyThreshold = copyThreshold;
        return this;
    }

    public int timeoutMs()
    {
        return timeoutMs;
    }

    public RaasContext timeoutMs(final int timeoutMs)
    {
        this.timeoutMs = timeoutMs;
        return this;
    }

    /** @return where standalone drivers keep their command-and-control files (default: the shm directory). */
    public java.nio.file.Path cncDirectory()
    {
        return cncDirectory != null ? cncDirectory : verbs.shmDirectory();
    }

    public RaasContext cncDirectory(final java.nio.file.Path cncDirectory)
    {
        this.cncDirectory = cncDirectory;
        return this;
    }

    /**
     * @return the node an application attached to a standalone driver is (0: its driver's own node): peers connect to
     * its services under this id, which the application registers in the directory with its driver's address, so that
     * several applications of one host each are a node of their own over one driver.
     */
    public long attachAs()
    {
        return attachAs;
    }

    /** @param nodeId the node an attached application is (non-zero, not its driver's), or 0 for its driver's own. */
    public RaasContext attachAs(final long nodeId)
    {
        this.attachAs = nodeId;
        return this;
    }

    public String driverName()
    {
        return driverName;
    }

    /** @return the class this application asks to be served in when it attaches; null for the driver's default. */
    public ServiceClass clientClass()
    {
        return clientClass.isEmpty() ? null : ServiceClass.parse(clientClass);
    }

    /** Ask the standalone driver to serve this application in a class (null: the driver's default). */
    public RaasContext clientClass(final ServiceClass serviceClass)
    {
        this.clientClass = serviceClass == null ? "" : serviceClass.toString();
        return this;
    }

    /** @return the weight this application asks for when it attaches; 0 for the driver's default. */
    public int clientWeight()
    {
        return clientWeight;
    }

    /** Ask for a weight: among bulk applications, requests taken per duty cycle (0: the driver's default). */
    public RaasContext clientWeight(final int weight)
    {
        this.clientWeight = weight;
        return this;
    }

    /** @return whether a standalone driver serves attached applications by class and weight. */
    public boolean isolation()
    {
        return isolation;
    }

    /** Serve attached applications by class and weight (true), or every request in arrival order (false). */
    public RaasContext isolation(final boolean isolation)
    {
        this.isolation = isolation;
        return this;
    }

    public ServiceClass defaultClass()
    {
        return ServiceClass.parse(defaultClass);
    }

    /** The class of applications that attach without asking for one. */
    public RaasContext defaultClass(final ServiceClass serviceClass)
    {
        this.defaultClass = serviceClass.toString();
        return this;
    }

    public int defaultWeight()
    {
        return defaultWeight;
    }

    /** The weight of applications that attach without asking for one. */
    public RaasContext defaultWeight(final int weight)
    {
        this.defaultWeight = weight;
        return this;
    }

    /** Name of the standalone driver to run or attach to: several may run on one host. */
    public RaasContext driverName(final String driverName)
    {
        this.driverName = driverName;
        return this;
    }

    public int clientTimeoutMs()
    {
        return clientTimeoutMs;
    }

    public RaasContext clientTimeoutMs(final int clientTimeoutMs)
    {
        this.clientTimeoutMs = clientTimeoutMs;
        return this;
    }

    public int driverTimeoutMs()
    {
        return driverTimeoutMs;
    }

    public RaasContext driverTimeoutMs(final int driverTimeoutMs)
    {
        this.driverTimeoutMs = driverTimeoutMs;
        return this;
    }

    public int clientDataBytes()
    {
        return clientDataBytes;
    }

    public RaasContext clientDataBytes(final int clientDataBytes)
    {
        this.clientDataBytes = clientDataBytes;
        return this;
    }

    public int commandRingBytes()
    {
        return commandRingBytes;
    }

    public RaasContext commandRingBytes(final int commandRingBytes)
    {
        this.commandRingBytes = commandRingBytes;
        return this;
    }

    public long dcKey()
    {
        return dcKey;
    }

    /**
     * Use this DC key for the driver's DC target (0, the default, draws a fresh one per start): a
     * node whose peers keep its record across restarts, such as a MetaServer, keeps its key.
     */
    public RaasContext dcKey(final long dcKey)
    {
        this.dcKey = dcKey;
        return this;
    }

    public boolean startAgents()
    {
        return startAgents;
    }

    /** Run the Worker and Poller agents (default); without them only calling threads make progress. */
    public RaasContext startAgents(final boolean startAgents)
    {
        this.startAgents = startAgents;
        return this;
    }

    public int errorLogBytes()
    {
        return errorLogBytes;
    }

    /** @param errorLogBytes bytes of a standalone driver's error log, in its cnc file. */
    public RaasContext errorLogBytes(final int errorLogBytes)
    {
        this.errorLogBytes = errorLogBytes;
        return this;
    }

    public int maxCounters()
    {
        return maxCounters;
    }

    /** @param maxCounters counters a standalone driver's counters file holds at most. */
    public RaasContext maxCounters(final int maxCounters)
    {
        this.maxCounters = maxCounters;
        return this;
    }

    /** @return where the driver allocates its counters; null for memory of its own. */
    public CountersManager countersManager()
    {
        return countersManager;
    }

    /**
     * Allocate the driver's counters ({@code DriverCounter}) here: the counters file of the process that runs the
     * driver, which other processes read; by default they are in memory only this process reads.
     */
    public RaasContext countersManager(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        return this;
    }

    public String workerIdleStrategy()
    {
        return workerIdleStrategy;
    }

    /** @param spec how the Worker agent waits for work, as {@link IdleStrategies#parse(String)} reads it. */
    public RaasContext workerIdleStrategy(final String spec)
    {
        this.workerIdleStrategy = spec;
        return this;
    }

    public String pollerIdleStrategy()
    {
        return pollerIdleStrategy;
    }

    /** @param spec how the Poller agent waits for completions, as {@link IdleStrategies#parse(String)} reads it. */
    public RaasContext pollerIdleStrategy(final String spec)
    {
        this.pollerIdleStrategy = spec;
        return this;
    }

    public String conductorIdleStrategy()
    {
        return conductorIdleStrategy;
    }

    /** @param spec how a standalone driver's conductor waits for commands ({@link IdleStrategies#parse(String)}). */
    public RaasContext conductorIdleStrategy(final String spec)
    {
        this.conductorIdleStrategy = spec;
        return this;
    }
}

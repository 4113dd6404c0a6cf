package io.dkv.meta;

import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasContext;
import io.dkv.raas.meta.MetaDirectoryConfiguration;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.raas.meta.MetaPartyContext;
import io.dkv.raas.meta.MetaTableDescriptor;

import java.nio.file.Path;

import static io.dkv.meta.MetaServerConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.longProperty;
import static io.dkv.verbs.ConfigurationProperties.requirePowerOfTwo;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * What a {@link MetaServer} is started with. Starts from {@link MetaServerConfiguration} (system
 * properties, then defaults); every setter is fluent. The driver's settings, including the
 * provider and device address, are in {@link #raas()}.
 *
 * <p>A cluster secret is required: {@link #clusterSecret(byte[])}, {@link #clusterSecretFile(Path)}
 * (or the {@value MetaDirectoryConfiguration#CLUSTER_SECRET_FILE_PROP_NAME} property), or, for
 * in-process use where every party is the same program, an explicit {@link #noClusterSecret()}.
 *
 * <p>{@link #epochClock()} is the server's wall clock: frames are timestamped with and checked against it, the
 * expiry a lease is granted with (what nodes and the peer are told) is read from it, and the time it began serving
 * (the older of two peers wins). {@link #nanoClock()} is what it measures its intervals by: how long since it heard a
 * node renew (a lease runs out after a lease's length of it, so that a step of the wall clock expires nothing),
 * between lease checks, an idle connection's, a forwarded write's timeout, between attempts to reach the peer, and
 * the wait for the peer's state at start.
 */
public final class MetaServerContext extends MetaPartyContext<MetaServerContext>
{
    /** Per-connection buffer a client may WRITE large messages into: RPC frames are small. */
    private static final int ADVERTISED_BYTES = 128 * 1024;

    private final RaasContext raas = new RaasContext();
    private long nodeId = longProperty(NODE_ID_PROP_NAME, NODE_ID_DEFAULT);
    private Path dataDir = Path.of(System.getProperty(DATA_DIR_PROP_NAME, DATA_DIR_DEFAULT));
    private int leaseMs = intProperty(LEASE_MS_PROP_NAME, LEASE_MS_DEFAULT);
    private int leaseCheckMs = intProperty(LEASE_CHECK_MS_PROP_NAME, LEASE_CHECK_MS_DEFAULT);
    private int leaseStallMs = intProperty(LEASE_STALL_MS_PROP_NAME, LEASE_STALL_MS_DEFAULT);
    private MetaEndpoint peer = parsePeer(System.getProperty(PEER_PROP_NAME, ""));
    private long dcKey = longProperty(DC_KEY_PROP_NAME, 0);
    private int nodeSlots = intProperty(NODE_SLOTS_PROP_NAME, NODE_SLOTS_DEFAULT);
    private int regionSlots = intProperty(REGION_SLOTS_PROP_NAME, REGION_SLOTS_DEFAULT);
    private int forwardTimeoutMs = intProperty(FORWARD_TIMEOUT_MS_PROP_NAME, FORWARD_TIMEOUT_MS_DEFAULT);
    private int peerRetryMs = intProperty(PEER_RETRY_MS_PROP_NAME, PEER_RETRY_MS_DEFAULT);
    private int catchUpTimeoutMs = intProperty(CATCH_UP_TIMEOUT_MS_PROP_NAME, CATCH_UP_TIMEOUT_MS_DEFAULT);
    private int idleConnectionMs = intProperty(IDLE_CONNECTION_MS_PROP_NAME, IDLE_CONNECTION_MS_DEFAULT);
    private String idleStrategy = System.getProperty(IDLE_STRATEGY_PROP_NAME, IDLE_STRATEGY_DEFAULT);
    private int replicas = intProperty(REPLICAS_PROP_NAME, REPLICAS_DEFAULT);
    private boolean replicasNamed = System.getProperty(REPLICAS_PROP_NAME) != null;
    private long[] founders = parseFounders(System.getProperty(FOUNDERS_PROP_NAME, ""));
    private Path errorDirectory;
    private Path countersDirectory;

    public MetaServerContext()
    {
        if (System.getProperty(RaasConfiguration.ADVERTISED_BYTES_PROP_NAME) == null)
        {
            raas.advertisedBytes(ADVERTISED_BYTES);
        }
    }

    private static MetaEndpoint parsePeer(final String text)
    {
        return text.isBlank() ? null : MetaEndpoint.parse(text);
    }

    /**
     * @param text node ids separated by commas, or blank for none.
     * @return the ids.
     * @throws IllegalArgumentException naming the text and the part that is no node id.
     */
    public static long[] parseFounders(final String text)
    {
        if (text.isBlank())
        {
            return new long[0];
        }
        final String[] parts = text.split(",");
        final long[] ids = new long[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            try
            {
                ids[i] = Long.parseLong(parts[i].strip());
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("founders '" + text + "': '" + parts[i].strip() +
                    "' is no node id", ex);
            }
        }
        return ids;
    }

    /**
     * Check the settings together, and fill in the clocks left unset with the process's.
     *
     * @return this.
     */
    public MetaServerContext conclude()
    {
        super.conclude();
        if (nodeId == 0)
        {
            throw new IllegalArgumentException("a MetaServer needs a fixed, non-zero node id");
        }
        if (peer != null && peer.nodeId() == nodeId)
        {
            throw new IllegalArgumentException("peer endpoint " + peer + " has this server's own node id " + nodeId);
        }
        requireRange("leaseMs", leaseMs, 10, 3_600_000);
        requireRange("leaseCheckMs", leaseCheckMs, 1, 3_600_000);
        requireRange("leaseStallMs", leaseStallMs, 0, Integer.MAX_VALUE);
        if (leaseStallMs == 0)
        {
            leaseStallMs = Math.max(leaseMs / 4, 4 * leaseCheckMs);
        }
        requirePowerOfTwo("nodeSlots", nodeSlots, 4, 1 << 20);
        requirePowerOfTwo("regionSlots", regionSlots, 4, 1 << 20);
        requireRange("forwardTimeoutMs", forwardTimeoutMs, 1, 600_000);
        requireRange("peerRetryMs", peerRetryMs, 1, 600_000);
        requireRange("catchUpTimeoutMs", catchUpTimeoutMs, 0, 600_000);
        requireRange("idleConnectionMs", idleConnectionMs, 1, Integer.MAX_VALUE);
        requireRange("replicas", replicas, 1, REPLICAS_MAX);
        requireFounders();
        concludeAuthentication("a MetaServer");
        io.dkv.agent.IdleStrategies.require("idleStrategy (" + IDLE_STRATEGY_PROP_NAME + ")", idleStrategy);
        return this;
    }

    public String idleStrategy()
    {
        return idleStrategy;
    }

    /** @param spec how the MetaServer's agent waits for RPCs, as {@link io.dkv.agent.IdleStrategies} reads it. */
    public MetaServerContext idleStrategy(final String spec)
    {
        this.idleStrategy = spec;
        return this;
    }

    /** @return the driver's settings: provider, device address (tcp address, shm device id) and limits. */
    public RaasContext raas()
    {
        return raas;
    }

    public long nodeId()
    {
        return nodeId;
    }

    public MetaServerContext nodeId(final long nodeId)
    {
        this.nodeId = nodeId;
        return this;
    }

    public Path dataDir()
    {
        return dataDir;
    }

    public MetaServerContext dataDir(final Path dataDir)
    {
        this.dataDir = dataDir;
        return this;
    }

    public int leaseMs()
    {
        return leaseMs;
    }

    public MetaServerContext leaseMs(final int leaseMs)
    {
        this.leaseMs = leaseMs;
        return this;
    }

    public int leaseCheckMs()
    {
        return leaseCheckMs;
    }

    public MetaServerContext leaseCheckMs(final int leaseCheckMs)
    {
        this.leaseCheckMs = leaseCheckMs;
        return this;
    }

    /** @return how long a gap between lease checks is this server's own stall, in milliseconds (0: the default). */
    public int leaseStallMs()
    {
        return leaseStallMs;
    }

    /**
     * @param leaseStallMs how long a gap between lease checks counts as this server's own stall, after which every
     *                     lease runs anew from the check that saw it; 0 for a quarter of the lease, at least 4 checks.
     * @return this.
     */
    public MetaServerContext leaseStallMs(final int leaseStallMs)
    {
        this.leaseStallMs = leaseStallMs;
        return this;
    }

    /** @return the other MetaServer, or null. */
    public MetaEndpoint peer()
    {
        return peer;
    }

    public MetaServerContext peer(final MetaEndpoint peer)
    {
        this.peer = peer;
        return this;
    }

    public long dcKey()
    {
        return dcKey;
    }

    /** Use this DC key (0: draw one at the first start and keep it in the store). */
    public MetaServerContext dcKey(final long dcKey)
    {
        this.dcKey = dcKey;
        return this;
    }

    public int nodeSlots()
    {
        return nodeSlots;
    }

    public MetaServerContext nodeSlots(final int nodeSlots)
    {
        this.nodeSlots = nodeSlots;
        return this;
    }

    public int regionSlots()
    {
        return regionSlots;
    }

    public MetaServerContext regionSlots(final int regionSlots)
    {
        this.regionSlots = regionSlots;
        return this;
    }

    public int forwardTimeoutMs()
    {
        return forwardTimeoutMs;
    }

    public MetaServerContext forwardTimeoutMs(final int forwardTimeoutMs)
    {
        this.forwardTimeoutMs = forwardTimeoutMs;
        return this;
    }

    public int peerRetryMs()
    {
        return peerRetryMs;
    }

    public MetaServerContext peerRetryMs(final int peerRetryMs)
    {
        this.peerRetryMs = peerRetryMs;
        return this;
    }

    public int catchUpTimeoutMs()
    {
        return catchUpTimeoutMs;
    }

    public MetaServerContext catchUpTimeoutMs(final int catchUpTimeoutMs)
    {
        this.catchUpTimeoutMs = catchUpTimeoutMs;
        return this;
    }

    public int idleConnectionMs()
    {
        return idleConnectionMs;
    }

    public MetaServerContext idleConnectionMs(final int idleConnectionMs)
    {
        this.idleConnectionMs = idleConnectionMs;
        return this;
    }

    /** @return copies of each key the cluster keeps; see {@link MetaServerConfiguration#REPLICAS_PROP_NAME}. */
    public int replicas()
    {
        return replicas;
    }

    /**
     * @param replicas copies of each key, 1 to {@value MetaServerConfiguration#REPLICAS_MAX}: kept at the store's first
     *                 start, and a change of the kept count at a later one.
     */
    public MetaServerContext replicas(final int replicas)
    {
        this.replicas = replicas;
        this.replicasNamed = true;
        return this;
    }

    /**
     * @return true when the replica count was named (its property set, or {@link #replicas(int)} called): a start
     * then changes the count the store keeps; otherwise it keeps it.
     */
    public boolean replicasNamed()
    {
        return replicasNamed;
    }

    /** @return the memory nodes that found the store (none: the first to register founds it alone). */
    public long[] founders()
    {
        return founders.clone();
    }

    /**
     * @param founders the memory nodes that found the store: while it is not founded, a memory node that is no member
     *                 and does not ask to join founds it only if it is one of these, and it is founded once all of
     *                 them are members; none: the first to register founds it alone. A founded store keeps its
     *                 founders whatever a later start names. See {@link MetaServerConfiguration#FOUNDERS_PROP_NAME}.
     */
    public MetaServerContext founders(final long... founders)
    {
        this.founders = founders.clone();
        return this;
    }

    private void requireFounders()
    {
        if (founders.length > MetaTableDescriptor.MEMBER_SLOTS)
        {
            throw new IllegalArgumentException(founders.length + " founders, more than the membership holds, " +
                MetaTableDescriptor.MEMBER_SLOTS);
        }
        for (int i = 0; i < founders.length; i++)
        {
            final long founder = founders[i];
            if (founder <= 0 || founder == nodeId || (peer != null && founder == peer.nodeId()))
            {
                throw new IllegalArgumentException("founder " + founder + " cannot be a memory node: " +
                    (founder <= 0 ? "node ids are positive" : "it is a MetaServer's id"));
            }
            for (int j = 0; j < i; j++)
            {
                if (founders[j] == founder)
                {
                    throw new IllegalArgumentException("founder " + founder + " is named twice");
                }
            }
        }
    }

    /** @return where the server keeps its error file for other processes to read; null keeps errors in memory. */
    public Path errorDirectory()
    {
        return errorDirectory;
    }

    /**
     * @param errorDirectory the host's error files ({@link io.dkv.agent.ErrorFile#hostDirectory}): the server keeps
     *                       its service agent's errors in {@code meta-server-<id>.errors} there, where
     *                       {@code ./dkv meta --errors} reads them; null keeps them in memory.
     */
    public MetaServerContext errorDirectory(final Path errorDirectory)
    {
        this.errorDirectory = errorDirectory;
        return this;
    }

    /** @return where the server keeps its counters file for other processes to read; null keeps them in memory. */
    public Path countersDirectory()
    {
        return countersDirectory;
    }

    /**
     * @param countersDirectory the host's counters files ({@link io.dkv.agent.CountersFile#hostDirectory}): the
     *                          server keeps its counters ({@link MetaServerCounter}) and its driver's in
     *                          {@code meta-server-<id>.counters} there, where {@code ./dkv meta --counters} reads
     *                          them; null keeps them in memory.
     */
    public MetaServerContext countersDirectory(final Path countersDirectory)
    {
        this.countersDirectory = countersDirectory;
        return this;
    }
}

package io.dkv.raas.meta;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.meta.MetaDirectoryConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * What a {@link MetaDirectory} is started with. Starts from {@link MetaDirectoryConfiguration}
 * (system properties, then defaults); every setter is fluent.
 *
 * <p>A cluster secret is required: {@link #clusterSecret(byte[])}, {@link #clusterSecretFile(Path)}
 * (or the {@value MetaDirectoryConfiguration#CLUSTER_SECRET_FILE_PROP_NAME} property), or, for
 * in-process use where every party is the same program, an explicit {@link #noClusterSecret()}.
 *
 * <p>The directory reads the time only from {@link #epochClock()}, which its frames are timestamped with and checked
 * against, and {@link #nanoClock()}, the clock of its due times and deadlines: the next epoch check, a failed
 * MetaServer's next attempt, an RPC's timeout, how long registering waits out another holder's lease. Give a
 * directory that serves a driver the driver's clocks ({@link #clocksOf}, as {@code ./dkv driver} does), so that one
 * setting governs the process.
 */
public final class MetaDirectoryContext extends MetaPartyContext<MetaDirectoryContext>
{
    private final List<MetaEndpoint> endpoints =
        new ArrayList<>(MetaEndpoint.parseList(MetaDirectoryConfiguration.endpoints()));
    private int epochCheckMs = intProperty(EPOCH_CHECK_MS_PROP_NAME, EPOCH_CHECK_MS_DEFAULT);
    private int heartbeatMs = intProperty(HEARTBEAT_MS_PROP_NAME, HEARTBEAT_MS_DEFAULT);
    private int rpcTimeoutMs = intProperty(RPC_TIMEOUT_MS_PROP_NAME, RPC_TIMEOUT_MS_DEFAULT);
    private int relinkMs = intProperty(RELINK_MS_PROP_NAME, RELINK_MS_DEFAULT);
    private byte[] nodeToken;
    private boolean join;
    private boolean restored;

    /**
     * Check the settings together, and fill in the clocks left unset with the process's.
     *
     * @return this.
     */
    public MetaDirectoryContext conclude()
    {
        super.conclude();
        if (endpoints.isEmpty() || endpoints.size() > 2)
        {
            throw new IllegalArgumentException("a MetaDirectory needs one or two MetaServer endpoints, got " +
                endpoints);
        }
        if (endpoints.size() == 2 && endpoints.get(0).nodeId() == endpoints.get(1).nodeId())
        {
            throw new IllegalArgumentException("both MetaServer endpoints have node id " + endpoints.get(0).nodeId());
        }
        requireRange("epochCheckMs", epochCheckMs, 0, 3_600_000);
        requireRange("heartbeatMs", heartbeatMs, 0, 3_600_000);
        requireRange("rpcTimeoutMs", rpcTimeoutMs, 1, 3_600_000);
        requireRange("relinkMs", relinkMs, 1, 3_600_000);
        concludeAuthentication("a MetaDirectory");
        if (nodeToken != null && nodeToken.length != MetaRpcDescriptor.TOKEN_LENGTH)
        {
            throw new IllegalArgumentException("a node token has " + MetaRpcDescriptor.TOKEN_LENGTH + " bytes, not " +
                nodeToken.length);
        }
        return this;
    }

    public List<MetaEndpoint> endpoints()
    {
        return endpoints;
    }

    /** Use these MetaServers (one, or two that replicate each other), replacing any configured. */
    public MetaDirectoryContext endpoints(final List<MetaEndpoint> endpoints)
    {
        this.endpoints.clear();
        this.endpoints.addAll(endpoints);
        return this;
    }

    public MetaDirectoryContext endpoints(final MetaEndpoint... endpoints)
    {
        return endpoints(List.of(endpoints));
    }

    public int epochCheckMs()
    {
        return epochCheckMs;
    }

    public MetaDirectoryContext epochCheckMs(final int epochCheckMs)
    {
        this.epochCheckMs = epochCheckMs;
        return this;
    }

    public int heartbeatMs()
    {
        return heartbeatMs;
    }

    public MetaDirectoryContext heartbeatMs(final int heartbeatMs)
    {
        this.heartbeatMs = heartbeatMs;
        return this;
    }

    public int rpcTimeoutMs()
    {
        return rpcTimeoutMs;
    }

    public MetaDirectoryContext rpcTimeoutMs(final int rpcTimeoutMs)
    {
        this.rpcTimeoutMs = rpcTimeoutMs;
        return this;
    }

    /** @return true when this memory node registers asking to be added by moving keys; false: it founds. */
    public boolean join()
    {
        return join;
    }

    /**
     * Register this memory node asking to be added by moving keys (placed after only, the membership in FILL)
     * rather than founding (a live placed member at once, its keys moved unfilled). While another change runs it is
     * registered and no member; {@link MetaDirectory#beginAdd} asks again. A member already, it is what it was.
     */
    public MetaDirectoryContext join(final boolean join)
    {
        this.join = join;
        return this;
    }

    /** @return true when this memory node registers as restored from its disk (see {@link #restored(boolean)}). */
    public boolean restored()
    {
        return restored;
    }

    /**
     * Register this memory node as restored: a new incarnation of a member whose memory is what its data directory
     * held, loaded before it serves, not empty. The MetaServer then keeps when it last served unmarked by
     * {@code Membership.MEMORY_LOST}, so that when every copy of a key went down its copy, if it served last, is the
     * one the others settle on (kv-memory-node/README.md, "Restarting from disk").
     */
    public MetaDirectoryContext restored(final boolean restored)
    {
        this.restored = restored;
        return this;
    }

    /** @return the token this node proposes when it registers, or null to draw one when the directory starts. */
    public byte[] nodeToken()
    {
        return nodeToken;
    }

    /**
     * Prove this node's identity with this token ({@link MetaRpcDescriptor#TOKEN_LENGTH} bytes): a node that
     * keeps it across restarts (in its data directory) takes its record back at once after a crash; one that
     * draws a new token waits for its old record's lease to lapse.
     */
    public MetaDirectoryContext nodeToken(final byte[] nodeToken)
    {
        this.nodeToken = nodeToken == null ? null : nodeToken.clone();
        return this;
    }

    /**
     * Take the clocks of the driver this directory serves, so that one setting governs the process.
     *
     * @param driver the driver's context, concluded (its clocks filled in).
     */
    public MetaDirectoryContext clocksOf(final io.dkv.raas.RaasContext driver)
    {
        if (driver.epochClock() == null || driver.nanoClock() == null)
        {
            throw new IllegalStateException("the driver's context is not concluded: it has no clocks to hand on yet");
        }
        return epochClock(driver.epochClock()).nanoClock(driver.nanoClock());
    }

    public int relinkMs()
    {
        return relinkMs;
    }

    public MetaDirectoryContext relinkMs(final int relinkMs)
    {
        this.relinkMs = relinkMs;
        return this;
    }
}

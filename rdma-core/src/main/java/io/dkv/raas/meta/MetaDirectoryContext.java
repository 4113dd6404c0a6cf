package io.dkv.raas.meta;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.meta.MetaDirectoryConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;

/**
 * What a {@link MetaDirectory} is started with. Starts from {@link MetaDirectoryConfiguration}
 * (system properties, then defaults); every setter is fluent.
 *
 * <p>A cluster secret is required: {@link #clusterSecret(byte[])}, {@link #clusterSecretFile(Path)}
 * (or the {@value MetaDirectoryConfiguration#CLUSTER_SECRET_FILE_PROP_NAME} property), or, for
 * in-process use where every party is the same program, an explicit {@link #noClusterSecret()}.
 *
 * <p>The directory reads the time only from {@link #epochClock()} and {@link #nanoClock()}. Give a directory that
 * serves a driver the driver's clocks ({@link io.dkv.raas.RaasContext#epochClock()}, as {@code ./dkv driver} does),
 * so that one setting governs the process.
 */
public final class MetaDirectoryContext
{
    private final List<MetaEndpoint> endpoints =
        new ArrayList<>(MetaEndpoint.parseList(MetaDirectoryConfiguration.endpoints()));
    private int epochCheckMs = intProperty(EPOCH_CHECK_MS_PROP_NAME, EPOCH_CHECK_MS_DEFAULT);
    private int heartbeatMs = intProperty(HEARTBEAT_MS_PROP_NAME, HEARTBEAT_MS_DEFAULT);
    private int rpcTimeoutMs = intProperty(RPC_TIMEOUT_MS_PROP_NAME, RPC_TIMEOUT_MS_DEFAULT);
    private int relinkMs = intProperty(RELINK_MS_PROP_NAME, RELINK_MS_DEFAULT);
    private int authWindowMs = intProperty(AUTH_WINDOW_MS_PROP_NAME, AUTH_WINDOW_MS_DEFAULT);
    private Path clusterSecretFile = MetaDirectoryConfiguration.clusterSecretFile();
    private byte[] clusterSecret;
    private boolean noClusterSecret;
    private byte[] nodeToken;
    private EpochClock epochClock = SystemEpochClock.INSTANCE;
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;

    /**
     * Check the settings together.
     *
     * @return this.
     */
    public MetaDirectoryContext conclude()
    {
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
        requireRange("authWindowMs", authWindowMs, 1, 3_600_000);
        clusterSecret = ClusterSecret.resolve(clusterSecret, clusterSecretFile, noClusterSecret, "a MetaDirectory");
        if (nodeToken != null && nodeToken.length != MetaRpcDescriptor.TOKEN_LENGTH)
        {
            throw new IllegalArgumentException("a node token has " + MetaRpcDescriptor.TOKEN_LENGTH + " bytes, not " +
                nodeToken.length);
        }
        return this;
    }

    private static void requireRange(final String name, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(name + " " + value + " outside " + min + ".." + max);
        }
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

    /**
     * @return the cluster secret, or null when {@link #noClusterSecret()} (read from the file by {@link #conclude()}).
     */
    public byte[] clusterSecret()
    {
        return clusterSecret;
    }

    /** Authenticate RPCs with this secret (at least {@link ClusterSecret#MIN_BYTES} bytes). */
    public MetaDirectoryContext clusterSecret(final byte[] clusterSecret)
    {
        this.clusterSecret = ClusterSecret.checked(clusterSecret);
        this.noClusterSecret = false;
        return this;
    }

    public Path clusterSecretFile()
    {
        return clusterSecretFile;
    }

    /** Read the cluster secret from this file ({@link ClusterSecret}) when concluded. */
    public MetaDirectoryContext clusterSecretFile(final Path clusterSecretFile)
    {
        this.clusterSecretFile = clusterSecretFile;
        return this;
    }

    /**
     * Use no cluster secret: frames are sealed with a fixed public key, so a MetaServer with no secret
     * takes them and one with a secret refuses them. For tests and programs that run every party in
     * one process; anything on a network needs a secret.
     */
    public MetaDirectoryContext noClusterSecret()
    {
        this.noClusterSecret = true;
        this.clusterSecret = null;
        this.clusterSecretFile = null;
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

    public int authWindowMs()
    {
        return authWindowMs;
    }

    /** Refuse frames whose timestamp is further than this from {@link #epochClock()}, in milliseconds. */
    public MetaDirectoryContext authWindowMs(final int authWindowMs)
    {
        this.authWindowMs = authWindowMs;
        return this;
    }

    public EpochClock epochClock()
    {
        return epochClock;
    }

    /** The clock frames are timestamped with and checked against. */
    public MetaDirectoryContext epochClock(final EpochClock epochClock)
    {
        this.epochClock = epochClock;
        return this;
    }

    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * The clock of the directory's due times and deadlines: the next epoch check, a failed MetaServer's next
     * attempt, an RPC's timeout, how long registering waits out another holder's lease.
     */
    public MetaDirectoryContext nanoClock(final NanoClock nanoClock)
    {
        this.nanoClock = nanoClock;
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

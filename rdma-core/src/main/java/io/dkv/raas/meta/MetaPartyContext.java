package io.dkv.raas.meta;

import io.dkv.clock.CommonContext;

import java.nio.file.Path;

import static io.dkv.raas.meta.MetaDirectoryConfiguration.AUTH_WINDOW_MS_DEFAULT;
import static io.dkv.raas.meta.MetaDirectoryConfiguration.AUTH_WINDOW_MS_PROP_NAME;
import static io.dkv.verbs.ConfigurationProperties.intProperty;
import static io.dkv.verbs.ConfigurationProperties.requireRange;

/**
 * The settings every party to the MetaServer protocol seals and checks its frames with: the cluster secret (or an
 * explicit none), how far a frame's timestamp may be from the party's wall clock, and its clocks. A node's
 * {@link MetaDirectoryContext} and a MetaServer's context are such parties; every setter is fluent and returns that
 * context.
 *
 * <p>{@link #epochClock()} is the party's wall clock: frames are timestamped with it and checked against it.
 * {@link #nanoClock()} is what the party measures its intervals, due times and deadlines by.
 *
 * @param <C> the context itself.
 */
public abstract class MetaPartyContext<C extends MetaPartyContext<C>> extends CommonContext<C>
{
    private int authWindowMs = intProperty(AUTH_WINDOW_MS_PROP_NAME, AUTH_WINDOW_MS_DEFAULT);
    private Path clusterSecretFile = MetaDirectoryConfiguration.clusterSecretFile();
    private byte[] clusterSecret;
    private boolean noClusterSecret;
    private String clusterSecretSource;

    protected MetaPartyContext()
    {
    }

    /**
     * Check these settings, and read the cluster secret from its file: for the context's {@code conclude()}, after
     * {@code super.conclude()} filled in the clocks.
     *
     * @param party what the context starts, for the messages: "a MetaServer".
     * @throws IllegalArgumentException naming the setting that is missing or out of range.
     */
    protected final void concludeAuthentication(final String party)
    {
        requireRange("authWindowMs", authWindowMs, 1, 3_600_000);
        // a secret given as bytes wins over a file (which may be the configured default, never read then)
        clusterSecretSource = noClusterSecret ? "none: in-process use without one" : clusterSecret != null ?
            "given to this process" : "from " + (clusterSecretFile != null ? clusterSecretFile.toAbsolutePath() : "");
        clusterSecret = ClusterSecret.resolve(clusterSecret, clusterSecretFile, noClusterSecret, party);
    }

    /**
     * @return where the cluster secret came from once concluded ("from FILE", "given to this process"), for a
     * message that says a MetaServer refused it.
     */
    public String clusterSecretSource()
    {
        return clusterSecretSource;
    }

    /**
     * @return the cluster secret, or null when {@link #noClusterSecret()} (read from the file by {@code conclude()}).
     */
    public byte[] clusterSecret()
    {
        return clusterSecret;
    }

    /** Authenticate RPCs with this secret (at least {@link ClusterSecret#MIN_BYTES} bytes). */
    public C clusterSecret(final byte[] clusterSecret)
    {
        this.clusterSecret = ClusterSecret.checked(clusterSecret);
        this.noClusterSecret = false;
        return self();
    }

    public Path clusterSecretFile()
    {
        return clusterSecretFile;
    }

    /** Read the cluster secret from this file ({@link ClusterSecret}) when concluded. */
    public C clusterSecretFile(final Path clusterSecretFile)
    {
        this.clusterSecretFile = clusterSecretFile;
        return self();
    }

    /**
     * Use no cluster secret: frames are sealed with a fixed public key, so a MetaServer with no secret
     * takes them and one with a secret refuses them. For tests and programs that run every party in
     * one process; anything on a network needs a secret.
     */
    public C noClusterSecret()
    {
        this.noClusterSecret = true;
        this.clusterSecret = null;
        this.clusterSecretFile = null;
        return self();
    }

    public int authWindowMs()
    {
        return authWindowMs;
    }

    /** Refuse frames whose timestamp is further than this from {@link #epochClock()}, in milliseconds. */
    public C authWindowMs(final int authWindowMs)
    {
        this.authWindowMs = authWindowMs;
        return self();
    }
}

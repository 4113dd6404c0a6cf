package io.dkv.raas.meta;

/**
 * Configuration properties of a {@link MetaDirectory}: system property names and defaults, from
 * which a {@link MetaDirectoryContext} starts.
 */
public final class MetaDirectoryConfiguration
{
    /** MetaServer endpoints ({@link MetaEndpoint}), separated by commas; the first is read from while it answers. */
    public static final String ENDPOINTS_PROP_NAME = "dkv.meta.endpoints";

    /** Cached records are checked against the table epoch at most this often (one 16-byte READ), in milliseconds. */
    public static final String EPOCH_CHECK_MS_PROP_NAME = "dkv.meta.epoch.check.ms";
    public static final int EPOCH_CHECK_MS_DEFAULT = 100;

    /** Lease renewal period in milliseconds; 0 renews three times per lease the MetaServer grants. */
    public static final String HEARTBEAT_MS_PROP_NAME = "dkv.meta.heartbeat.ms";
    public static final int HEARTBEAT_MS_DEFAULT = 0;

    /** How long an RPC to a MetaServer may take before it is tried on the other, in milliseconds. */
    public static final String RPC_TIMEOUT_MS_PROP_NAME = "dkv.meta.rpc.timeout.ms";
    public static final int RPC_TIMEOUT_MS_DEFAULT = 3000;

    /** A MetaServer that failed is tried again after this long, in milliseconds. */
    public static final String RELINK_MS_PROP_NAME = "dkv.meta.relink.ms";
    public static final int RELINK_MS_DEFAULT = 1000;

    /**
     * File holding the cluster secret ({@link ClusterSecret}) that MetaServer RPCs are authenticated with;
     * read by MetaDirectoryContext and MetaServerContext when none is set on them.
     */
    public static final String CLUSTER_SECRET_FILE_PROP_NAME = "dkv.cluster.secret.file";

    /** A frame whose timestamp is further than this from the receiver's clock is refused, in milliseconds. */
    public static final String AUTH_WINDOW_MS_PROP_NAME = "dkv.meta.auth.window.ms";
    public static final int AUTH_WINDOW_MS_DEFAULT = 30_000;

    private MetaDirectoryConfiguration()
    {
    }

    /** @return the cluster secret file configured, or null. */
    public static java.nio.file.Path clusterSecretFile()
    {
        final String file = System.getProperty(CLUSTER_SECRET_FILE_PROP_NAME, "");
        return file.isBlank() ? null : java.nio.file.Path.of(file);
    }

    static String endpoints()
    {
        return System.getProperty(ENDPOINTS_PROP_NAME, "");
    }
}

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

    private MetaDirectoryConfiguration()
    {
    }

    static String endpoints()
    {
        return System.getProperty(ENDPOINTS_PROP_NAME, "");
    }
}

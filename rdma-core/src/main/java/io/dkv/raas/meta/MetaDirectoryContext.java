package io.dkv.raas.meta;

import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.meta.MetaDirectoryConfiguration.*;
import static io.dkv.verbs.ConfigurationProperties.intProperty;

/**
 * What a {@link MetaDirectory} is started with. Starts from {@link MetaDirectoryConfiguration}
 * (system properties, then defaults); every setter is fluent.
 */
public final class MetaDirectoryContext
{
    private final List<MetaEndpoint> endpoints = new ArrayList<>(MetaEndpoint.parseList(MetaDirectoryConfiguration.endpoints()));
    private int epochCheckMs = intProperty(EPOCH_CHECK_MS_PROP_NAME, EPOCH_CHECK_MS_DEFAULT);
    private int heartbeatMs = intProperty(HEARTBEAT_MS_PROP_NAME, HEARTBEAT_MS_DEFAULT);
    private int rpcTimeoutMs = intProperty(RPC_TIMEOUT_MS_PROP_NAME, RPC_TIMEOUT_MS_DEFAULT);
    private int relinkMs = intProperty(RELINK_MS_PROP_NAME, RELINK_MS_DEFAULT);

    /**
     * Check the settings together.
     *
     * @return this.
     */
    public MetaDirectoryContext conclude()
    {
        if (endpoints.isEmpty() || endpoints.size() > 2)
        {
            throw new IllegalArgumentException("a MetaDirectory needs one or two MetaServer endpoints, got " + endpoints);
        }
        if (endpoints.size() == 2 && endpoints.get(0).nodeId() == endpoints.get(1).nodeId())
        {
            throw new IllegalArgumentException("both MetaServer endpoints have node id " + endpoints.get(0).nodeId());
        }
        requireRange("epochCheckMs", epochCheckMs, 0, 3_600_000);
        requireRange("heartbeatMs", heartbeatMs, 0, 3_600_000);
        requireRange("rpcTimeoutMs", rpcTimeoutMs, 1, 3_600_000);
        requireRange("relinkMs", relinkMs, 1, 3_600_000);
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

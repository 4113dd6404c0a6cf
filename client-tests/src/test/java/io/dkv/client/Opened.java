package io.dkv.client;

import io.dkv.raas.RaasContext;
import io.dkv.verbs.VerbsContext;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test of this package opened (drivers, memory nodes, clients, sessions), closed in reverse order when it ends,
 * and the settings of the drivers it embeds.
 */
final class Opened implements AutoCloseable
{
    private final List<AutoCloseable> resources = new ArrayList<>();

    /** @return the resource, closed with the others, after any opened after it. */
    <T extends AutoCloseable> T add(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    /** @return a driver of node {@code nodeId} on the provider, for a test's one JVM. */
    static RaasContext driver(final String provider, final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId)
            .requestSlots(256)
            .timeoutMs(10_000);
    }

    public void close() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
        resources.clear();
    }
}

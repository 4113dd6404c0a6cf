package io.dkv.raas.lite;

import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;

import java.nio.file.Path;
import java.util.List;

/**
 * LITE's {@code join}: become a node of the cluster knowing only its MetaServers' endpoints (what
 * {@code ./dkv meta} prints and writes to its endpoint file) and the cluster secret. The endpoint names the
 * provider (shm, tcp, verbs) this node's device must speak; the node id is drawn.
 */
public final class Join
{
    private Join()
    {
    }

    /**
     * @param metaServers one or two MetaServer endpoints, comma-separated.
     * @param clusterSecretFile the file holding the cluster secret the MetaServer authenticates RPCs with.
     * @return an embedded driver registered with the MetaServer.
     * @throws IllegalArgumentException naming the text when an endpoint does not parse.
     */
    public static Raas join(final String metaServers, final Path clusterSecretFile)
    {
        final List<MetaEndpoint> endpoints = MetaEndpoint.parseList(metaServers);
        return join(new RaasContext().verbs(new VerbsContext().provider(endpoints.get(0).address().provider())),
            endpoints, clusterSecretFile);
    }

    /**
     * @param context the driver's settings (its provider must be the MetaServers').
     */
    public static Raas join(final RaasContext context, final List<MetaEndpoint> endpoints,
        final Path clusterSecretFile)
    {
        if (endpoints.isEmpty())
        {
            throw new IllegalArgumentException("no MetaServer endpoint to join by");
        }
        final String provider = endpoints.get(0).address().provider();
        if (!provider.equals(context.verbs().provider()))
        {
            throw new IllegalArgumentException("MetaServer " + endpoints.get(0) + " speaks " + provider +
                "; this node's device speaks " + context.verbs().provider());
        }
        context.conclude();
        final MetaDirectory directory = new MetaDirectory(new MetaDirectoryContext()
            .clusterSecretFile(clusterSecretFile)
            .endpoints(endpoints)
            .clocksOf(context));
        return RaasDriver.start(context, directory);
    }
}

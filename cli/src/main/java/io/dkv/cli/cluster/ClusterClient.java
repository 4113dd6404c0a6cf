package io.dkv.cli.cluster;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;

/**
 * A client attached to the driver of the local cluster that a cluster file describes, over the memory nodes that
 * the MetaServer's membership lists as it connects.
 */
public final class ClusterClient implements AutoCloseable
{
    private final Raas raas;
    private final KvClient client;

    private ClusterClient(final Raas raas, final KvClient client)
    {
        this.raas = raas;
        this.client = client;
    }

    /**
     * @throws IllegalStateException when no local cluster runs, saying how to start one.
     */
    static ClusterClient attach(final ClusterFileOption options)
    {
        final ClusterFile cluster = ClusterFile.read(options.path());
        if (!cluster.isLive())
        {
            throw new IllegalStateException("the local cluster described in " + options.path() +
                " is gone (dkv up, process " + cluster.upPid() + ", no longer runs): start one with ./dkv up");
        }
        final Raas raas = AttachedRaas.attach(new RaasContext().driverName(cluster.driverName()));
        try
        {
            // no memory nodes named: the client reads the membership the MetaServer holds now, so that a drain or a
            // join since dkv up started is followed; a command line's OK means stored: on disk before it returns
            return new ClusterClient(raas, KvClient.connect(raas, new KvClientContext().durability(Durability.SYNC)));
        }
        catch (final RuntimeException ex)
        {
            raas.close();
            throw ex;
        }
    }

    KvClient client()
    {
        return client;
    }

    public void close()
    {
        client.close();
        raas.close();
    }
}

package io.dkv.cli.cluster;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.cnc.AttachedRaas;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The options of the commands that use a local cluster, and a client attached to its driver.
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
    static ClusterClient attach(final Options options)
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
            // a command line's OK means stored: on disk before it returns
            return new ClusterClient(raas, KvClient.connect(raas,
                new KvClientContext().memoryNodes(cluster.memoryNodes()).durability(Durability.SYNC)));
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

    /** Where the cluster is described. */
    public static final class Options
    {
        @Option(names = "--cluster", paramLabel = "FILE",
            description = "The cluster file dkv up wrote (default: <tmp>/dkv-up/cluster.properties).")
        private Path cluster;

        Path path()
        {
            return cluster != null ? cluster : ClusterFile.defaultPath();
        }
    }
}

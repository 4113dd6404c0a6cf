package io.dkv.load.check.harness;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.agrona.CloseHelper;

import java.nio.file.Path;

/**
 * The memory tier's membership as the MetaServer publishes it, read from this JVM through a
 * directory of its own (a driver in this JVM, registered as a client), the way clients read it: so
 * that the nemesis sees which memory nodes are down or still joining before it kills another one.
 * The driver is started at the first read, so that runs that never ask cost nothing, and again
 * after a read failed (the MetaServer may have been killed and restarted meanwhile).
 */
final class MembershipProbe implements AutoCloseable
{
    private final String metaEndpoint;
    private final Path clusterSecretFile;
    private Raas raas;
    private boolean closed;

    /**
     * @param metaEndpoint      the MetaServer's endpoint, as {@code dkv meta} prints it.
     * @param clusterSecretFile the cluster secret this JVM proves itself with.
     */
    MembershipProbe(final String metaEndpoint, final Path clusterSecretFile)
    {
        this.metaEndpoint = metaEndpoint;
        this.clusterSecretFile = clusterSecretFile;
    }

    /**
     * @return the membership read anew.
     * @throws RuntimeException when it cannot be read now, e.g. the MetaServer is down; the next read starts over.
     */
    synchronized Membership read()
    {
        if (closed)
        {
            throw new IllegalStateException("the membership probe of " + metaEndpoint + " is closed");
        }
        try
        {
            if (raas == null)
            {
                raas = RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("shm")),
                    new MetaDirectory(new MetaDirectoryContext()
                        .clusterSecretFile(clusterSecretFile)
                        .endpoints(MetaEndpoint.parse(metaEndpoint))));
            }
            return raas.membership();
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(raas);
            raas = null;
            throw ex;
        }
    }

    public synchronized void close()
    {
        closed = true;
        CloseHelper.quietClose(raas);
        raas = null;
    }
}

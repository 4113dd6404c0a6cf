package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.RaasException;
import io.dkv.raas.meta.MetaEndpoint;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A standalone driver as operators run it, {@code dkv driver}, in a JVM of its own (a
 * {@link RoleProcess}).
 */
final class DriverProcess implements AutoCloseable
{
    static final String HEAP = "512m";

    private final String name;
    private final RoleProcess process;
    private final long nodeId;

    private DriverProcess(final String name, final RoleProcess process)
    {
        this.name = name;
        this.process = process;
        this.nodeId = Long.parseLong(process.readyGroup(1));
    }

    /**
     * Start {@code dkv driver} and wait until it serves.
     *
     * @param provider   the provider its device opens.
     * @param name       the driver's name, which clients attach by.
     * @param meta       the MetaServer it joins the cluster through.
     * @param secretFile the cluster secret file.
     * @param properties system properties for the child (driver settings, see {@code RaasConfiguration}).
     * @param log        where its stdout and stderr go.
     */
    static DriverProcess start(
        final Provider provider,
        final String name,
        final MetaEndpoint meta,
        final Path secretFile,
        final Map<String, String> properties,
        final Path log)
    {
        try
        {
            return new DriverProcess(name, RoleProcess.start("standalone driver '" + name + "'", HEAP, properties,
                List.of("driver", "--name", name, "--provider", provider.verbsName(), "--address",
                    RaasNodes.LOOPBACK_ADDRESS,
                    "--meta", meta.toString(), "--cluster-secret-file", secretFile.toString()),
                ReadyLines.DRIVER, log));
        }
        catch (final IllegalStateException ex)
        {
            throw new RaasException(ex.getMessage(), ex);
        }
    }

    /** @return the end of what the driver wrote, for an error about it. */
    String logTail()
    {
        return process.logTail();
    }

    String name()
    {
        return name;
    }

    /** @return the node the driver serves, as the MetaServer knows it. */
    long nodeId()
    {
        return nodeId;
    }

    /** @return the process id, to look at its memory or CPU. */
    long pid()
    {
        return process.pid();
    }

    /**
     * Stop the driver as Ctrl-C does (it closes its clients and deregisters), killing it when it does
     * not exit in time.
     */
    public void close()
    {
        process.close();
    }
}

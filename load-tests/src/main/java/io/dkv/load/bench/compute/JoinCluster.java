package io.dkv.load.bench.compute;

import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.meta.ClusterSecret;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The cluster new compute nodes join: a MetaServer, one memory node and the host's standalone driver, each a process
 * of this host started as {@code ./dkv up} starts them, on the shm provider.
 */
final class JoinCluster implements AutoCloseable
{
    static final String PROVIDER = "shm";
    private static final long MEMORY_NODE_ID = 101;

    private final List<RoleProcess> started;
    private final String metaEndpoint;
    private final Path secretFile;
    private final String driverName;

    private JoinCluster(final List<RoleProcess> started, final String metaEndpoint, final Path secretFile,
        final String driverName)
    {
        this.driverName = driverName;
        this.started = started;
        this.metaEndpoint = metaEndpoint;
        this.secretFile = secretFile;
    }

    /**
     * @param directory where the logs, the secret and the MetaServer's data go; empty.
     * @throws IllegalStateException when a role does not start, with its log's end.
     */
    static JoinCluster start(final Path directory) throws IOException
    {
        final Path secret = directory.resolve("cluster-secret");
        ClusterSecret.readOrGenerate(secret);
        final List<RoleProcess> started = new ArrayList<>();
        try
        {
            final RoleProcess meta = RoleProcess.start("MetaServer", "256m", Map.of(),
                List.of("meta", "--node-id", "1", "--provider", PROVIDER,
                    "--data-dir", directory.resolve("meta-data").toString(),
                    "--cluster-secret-file", secret.toString()),
                ReadyLines.META, directory.resolve("meta.log"));
            started.add(meta);
            final String endpoint = meta.readyGroup(1);
            started.add(RoleProcess.start("memory node", "256m", Map.of(),
                List.of("memory-node", "--node-id", Long.toString(MEMORY_NODE_ID), "--provider", PROVIDER,
                    "--meta", endpoint,
                    "--cluster-secret-file", secret.toString(), "--index-groups", "1024", "--heap-chunks", "8",
                    "--data-dir", directory.resolve("memory-node-data").toString()),
                ReadyLines.MEMORY_NODE, directory.resolve("memory-node.log")));
            // a driver's name is the host's: this JVM's pid keeps two benchmarks (or a test and one) apart
            final String driverName = "dkv-bench-compute-" + ProcessHandle.current().pid();
            started.add(RoleProcess.start("driver", "256m", Map.of(),
                List.of("driver", "--name", driverName,
                    "--provider", PROVIDER, "--meta", endpoint,
                    "--cluster-secret-file", secret.toString()),
                ReadyLines.DRIVER, directory.resolve("driver.log")));
            return new JoinCluster(started, endpoint, secret, driverName);
        }
        catch (final RuntimeException ex)
        {
            RoleProcess.closeAll(started);
            throw ex;
        }
    }

    String metaEndpoint()
    {
        return metaEndpoint;
    }

    Path secretFile()
    {
        return secretFile;
    }

    /** @return the name compute nodes attach to the cluster's standalone driver by ({@code --driver}). */
    String driverName()
    {
        return driverName;
    }

    public void close()
    {
        RoleProcess.closeAll(started);
    }
}

package io.dkv.load.memory;

import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The MetaServer process and the in-test drivers of the memory-node tests that run roles as processes over tcp:
 * one place for how they are started.
 */
final class TcpRoles
{
    private TcpRoles()
    {
    }

    /** @return a driver of this test process on tcp, its directory the MetaServer's. */
    static Raas raas(final Path secret, final RoleProcess meta, final long nodeId, final int timeoutMs)
    {
        return RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("tcp").tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId).timeoutMs(timeoutMs), MetaDirectory.of(secret, MetaEndpoint.parse(meta.readyGroup(1))));
    }

    /** @return a MetaServer started with a new cluster secret, its data under {@code dir}, and these options. */
    static RoleProcess metaServer(final Path dir, final Path secret, final String... options)
    {
        ClusterSecret.generate(secret);
        final List<String> arguments = new ArrayList<>(List.of("meta", "--cluster-secret-file", secret.toString(),
            "--node-id", "1", "--provider", "tcp", "--data-dir", dir.resolve("meta").toString()));
        arguments.addAll(List.of(options));
        return RoleProcess.start("MetaServer", "256m", Map.of(), arguments, ReadyLines.META, dir.resolve("meta.log"));
    }
}

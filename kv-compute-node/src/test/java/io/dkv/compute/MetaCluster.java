package io.dkv.compute;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A MetaServer and nodes joined to it through the authenticated directory, on the shm provider: the
 * setting of the tests in which compute nodes register, list each other and leave.
 */
final class MetaCluster
{
    static final byte[] SECRET = HexFormat.of().parseHex(
        "6b1f0c2a9e8d7c6b5a49382716050f1e2d3c4b5a69788796a5b4c3d2e1f00112");

    private MetaCluster()
    {
    }

    /** A MetaServer with node id {@code base}, on an shm device of that id, keeping its state in {@code dir}. */
    static MetaServer metaServer(final long base, final Path dir)
    {
        final MetaServerContext context = new MetaServerContext().nodeId(base).clusterSecret(SECRET).dataDir(dir)
            .nodeSlots(64).regionSlots(128).leaseMs(5_000).leaseCheckMs(50);
        context.raas().verbs(new VerbsContext().provider("shm").shmDeviceId(base)).timeoutMs(3_000);
        return MetaServer.start(context);
    }

    /** A node of a role, registered with the MetaServer at {@code endpoint}. */
    static Raas node(final MetaEndpoint endpoint, final long nodeId, final int role)
    {
        return Raas.embedded(new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(nodeId).role(role)
            .timeoutMs(3_000), new MetaDirectory(new MetaDirectoryContext().clusterSecret(SECRET).endpoints(endpoint)
            .epochCheckMs(20).rpcTimeoutMs(2_000).heartbeatMs(300)));
    }

    /** A memory node small enough for a test, over a driver registered as {@link NodeRecord#ROLE_MEMORY}. */
    static MemoryNode memoryNode(final Raas memoryRaas)
    {
        return MemoryNode.start(memoryRaas,
            new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20).heapChunks(16));
    }

    static void await(final String what, final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 60_000_000_000L;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail(what + " did not happen within 60 s");
            }
            Thread.sleep(20);
        }
    }
}

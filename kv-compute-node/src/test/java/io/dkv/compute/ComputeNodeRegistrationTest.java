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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A compute node joins the cluster as the real command does: its RaaS handle registers it with the MetaServer as role
 * compute, its client finds the memory nodes the MetaServer lists, and closing it drains and deregisters it.
 */
class ComputeNodeRegistrationTest
{
    private static final byte[] SECRET = HexFormat.of().parseHex(
        "6b1f0c2a9e8d7c6b5a49382716050f1e2d3c4b5a69788796a5b4c3d2e1f00112");

    @TempDir
    Path dir;

    @Test
    void aComputeNodeAppearsInTheDirectoryWhileItServesAndLeavesOnClose() throws Exception
    {
        final long base = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
        final MetaServerContext serverContext = new MetaServerContext().nodeId(base).clusterSecret(SECRET).dataDir(dir)
            .nodeSlots(64).regionSlots(128).leaseMs(5_000).leaseCheckMs(50);
        serverContext.raas().verbs(new VerbsContext().provider("shm").shmDeviceId(base)).timeoutMs(3_000);
        try (MetaServer server = MetaServer.start(serverContext);
            Raas memoryRaas = node(server.endpoint(), base + 1, NodeRecord.ROLE_MEMORY);
            MemoryNode memory = MemoryNode.start(memoryRaas,
                new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20).heapChunks(16));
            Raas observer = node(server.endpoint(), base + 2, NodeRecord.ROLE_CLIENT))
        {
            final Raas computeRaas = node(server.endpoint(), base + 3, NodeRecord.ROLE_COMPUTE);
            final ComputeNode compute = ComputeNode.start(new ComputeNodeContext().port(0).ioThreads(1)
                .raas(computeRaas, true));
            try
            {
                await("the compute node listed", () -> listed(observer, base + 3));
                try (RawResp client = new RawResp(compute.port()))
                {
                    assertEquals("+OK", client.call("SET", "joined", "yes"));
                    assertEquals("$yes", client.call("GET", "joined"));
                }
            }
            finally
            {
                compute.close();
            }
            await("the compute node gone from the directory", () -> !listed(observer, base + 3));
        }
    }

    private static boolean listed(final Raas observer, final long nodeId)
    {
        return observer.nodes(NodeRecord.ROLE_COMPUTE).stream().anyMatch(record -> record.id() == nodeId);
    }

    private static Raas node(final MetaEndpoint endpoint, final long nodeId, final int role)
    {
        return Raas.embedded(new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(nodeId).role(role)
            .timeoutMs(3_000), new MetaDirectory(new MetaDirectoryContext().clusterSecret(SECRET).endpoints(endpoint)
            .epochCheckMs(20).rpcTimeoutMs(2_000).heartbeatMs(300)));
    }

    private static void await(final String what, final BooleanSupplier condition) throws InterruptedException
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

package io.dkv.compute;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.driver.StandaloneDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;
import org.agrona.CloseHelper;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A MetaServer with one memory node registered, and the nodes a test joins to it through the authenticated directory,
 * on the shm provider: the setting of the tests in which compute nodes register, list each other and leave. Node ids
 * start at a random base, so that tests never meet each other's shm devices: the MetaServer is {@code base}, the
 * memory node {@code base + 1}, and the test's own nodes follow.
 */
final class MetaCluster implements AutoCloseable
{
    static final byte[] SECRET = HexFormat.of().parseHex(
        "6b1f0c2a9e8d7c6b5a49382716050f1e2d3c4b5a69788796a5b4c3d2e1f00112");

    final long base = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
    private final MetaServer server;
    private final Raas memoryRaas;
    private final MemoryNode memory;

    /** @param dir where the MetaServer keeps its state; the memory node keeps nothing on disk. */
    MetaCluster(final Path dir)
    {
        this(dir, null);
    }

    /**
     * @param dir           where the MetaServer keeps its state.
     * @param memoryDataDir where the memory node keeps the keys it is told of (RocksDB), or null: it keeps nothing on
     *                      disk, and writes cannot be made durable.
     */
    MetaCluster(final Path dir, final Path memoryDataDir)
    {
        final MetaServerContext context = new MetaServerContext().nodeId(base).clusterSecret(SECRET).dataDir(dir)
            .nodeSlots(64).regionSlots(128).leaseMs(5_000).leaseCheckMs(50);
        context.raas().verbs(new VerbsContext().provider("shm").shmDeviceId(base)).timeoutMs(3_000);
        server = MetaServer.start(context);
        Raas raas = null;
        try
        {
            raas = node(base + 1, NodeRecord.ROLE_MEMORY);
            memory = MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20).heapChunks(16)
                .dataDir(memoryDataDir));
            memoryRaas = raas;
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(raas, server);
            throw ex;
        }
    }

    /** @return the memory node, for what it counts (the keys it wrote to disk). */
    MemoryNode memory()
    {
        return memory;
    }

    /** @return the memory node's id. */
    long memoryId()
    {
        return base + 1;
    }

    MetaEndpoint endpoint()
    {
        return server.endpoint();
    }

    /** A node of a role, registered with the MetaServer; the caller closes it. */
    Raas node(final long nodeId, final int role)
    {
        return RaasDriver.start(new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(nodeId).role(role)
            .timeoutMs(3_000), directory());
    }

    /**
     * The host's standalone driver, a node registered with the MetaServer, to which applications attach under the name
     * given (as nodes of their own, if they ask); the caller closes it.
     */
    StandaloneDriver driver(final long nodeId, final String name)
    {
        return StandaloneDriver.launch(new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(nodeId)
            .driverName(name).timeoutMs(3_000), directory());
    }

    private MetaDirectory directory()
    {
        return new MetaDirectory(new MetaDirectoryContext().clusterSecret(SECRET).endpoints(server.endpoint())
            .epochCheckMs(20).rpcTimeoutMs(2_000).heartbeatMs(300));
    }

    public void close()
    {
        CloseHelper.closeAll(memory, memoryRaas, server);
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

package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A member's ask to restart from the disk (MemoryNodeProtocol.RESTART; kv-memory-node/README.md, "Every copy of some
 * keys lost while a member serves"): the node restarts only as the incarnation the asker saw, once however often it
 * is asked, and refuses where it keeps nothing on disk or cannot restart itself.
 */
class RestartRequestTest
{
    private static final long NODE = 8;
    private static final long CLIENT = 80;
    private static final long ASKER = 9;

    private final StaticDirectory directory = new StaticDirectory();

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private static MemoryNodeContext node(final Path data, final LongConsumer restart)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(16).dataDir(data)
            .restartFromDisk(restart);
    }

    @Test
    void theIncarnationAskedRestartsOnceAndAnotherIncarnationRefuses(@TempDir final Path data)
    {
        final AtomicInteger asks = new AtomicInteger();
        final AtomicLong askedBy = new AtomicLong();
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data, asker ->
            {
                asks.incrementAndGet();
                askedBy.set(asker);
            }));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.NONE)))
        {
            final long incarnation = nodeRaas.self().epoch();
            assertEquals(MemoryNodeProtocol.GONE, client.askToRestartFromDisk(NODE, incarnation + 1, ASKER),
                "an ask made of the incarnation before (or after) this one");
            assertEquals(0, asks.get());

            assertEquals(MemoryNodeProtocol.OK, client.askToRestartFromDisk(NODE, incarnation, ASKER));
            assertEquals(1, asks.get());
            assertEquals(ASKER, askedBy.get(), "the process is told who asked, to say it");
            assertEquals(MemoryNodeProtocol.OK, client.askToRestartFromDisk(NODE, incarnation, ASKER),
                "asked again while it restarts: the same answer, no second restart");
            assertEquals(1, asks.get());
        }
    }

    @Test
    void aNodeThatCannotRestartItselfOrKeepsNothingOnDiskRefuses(@TempDir final Path data)
    {
        final AtomicInteger asks = new AtomicInteger();
        try (Raas nodeRaas = raas(NODE);
            MemoryNode embedded = MemoryNode.start(nodeRaas, node(data, null));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.NONE)))
        {
            assertEquals(MemoryNodeProtocol.BAD_REQUEST,
                client.askToRestartFromDisk(NODE, nodeRaas.self().epoch(), ASKER), "embedded: nothing restarts it");
        }
        try (Raas nodeRaas = raas(NODE);
            MemoryNode inMemory = MemoryNode.start(nodeRaas, node(null, asker -> asks.incrementAndGet()));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.NONE)))
        {
            assertEquals(MemoryNodeProtocol.NOT_PERSISTENT,
                client.askToRestartFromDisk(NODE, nodeRaas.self().epoch(), ASKER), "no disk to restart from");
            assertEquals(0, asks.get());
        }
    }
}

package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node with a data directory comes back from a restart with every key a client wrote
 * under durability sync (or async, once written), holding its last value; a client keeps working
 * across the restart.
 */
class DurabilityTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;

    private final StaticDirectory directory = new StaticDirectory();

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Raas raas(final long nodeId)
    {
        return Raas.embedded(KvCluster.context("shm", nodeId), directory);
    }

    private static MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8).dataDir(data);
    }

    private static KvClient connect(final Raas clientRaas, final Durability durability)
    {
        return KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE).durability(durability));
    }

    /** The memory node with its own driver, stopped and started again over the same data directory. */
    private final class RestartableNode implements AutoCloseable
    {
        private final MemoryNodeContext context;
        private Raas raas;
        private MemoryNode node;

        RestartableNode(final MemoryNodeContext context)
        {
            this.context = context;
            start();
        }

        MemoryNode node()
        {
            return node;
        }

        /** @return the node as it came back: what it recovered from its data directory. */
        MemoryNode restart()
        {
            close();
            start();
            return node;
        }

        private void start()
        {
            raas = raas(NODE);
            node = MemoryNode.start(raas, context);
        }

        public void close()
        {
            node.close();
            raas.close();
        }
    }

    @Test
    void keysWrittenUnderSyncComeBackAfterARestartWithTheirLastValues(@TempDir final Path data)
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            for (int i = 0; i < 200; i++)
            {
                client.put(bytes("k" + i), bytes("first " + i));
            }
            for (int i = 0; i < 200; i += 3)
            {
                client.put(bytes("k" + i), bytes("second " + i));
            }
            for (int i = 1; i < 200; i += 5)
            {
                assertTrue(client.delete(bytes("k" + i)));
            }
            assertTrue(client.compareAndSet(bytes("k0"), bytes("second 0"), bytes("third 0")));
            assertTrue(memory.node().persistStats().keysPersisted() >= 200 + 67 + 40 + 1);

            assertEquals(200 - 40, memory.restart().keysRecovered());

            // the client finds the node's new regions by itself, after at most a failed operation per thread
            assertArrayEquals(bytes("third 0"), KvCluster.afterRestart(() -> client.get(bytes("k0"))));
            for (int i = 1; i < 200; i++)
            {
                final byte[] value = client.get(bytes("k" + i));
                if (i % 5 == 1)
                {
                    assertNull(value, "k" + i + " was deleted");
                }
                else
                {
                    assertArrayEquals(bytes((i % 3 == 0 ? "second " : "first ") + i), value, "k" + i);
                }
            }
            client.put(bytes("after"), bytes("restart"));
            assertArrayEquals(bytes("restart"), client.get(bytes("after")));
        }
    }

    @Test
    void keysWrittenUnderAsyncAreOnDiskSoonAfter(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.ASYNC))
        {
            final MemoryNode memoryNode = memory.node();
            for (int i = 0; i < 100; i++)
            {
                client.put(bytes("a" + i), bytes("v" + i));
            }
            KvCluster.awaitTrue(() -> memoryNode.persistStats().keysPersisted() >= 100);
            assertEquals(100, memoryNode.persistStats().keysPersisted());
            assertTrue(memoryNode.persistStats().maxLagNanos() > 0);
            assertEquals(100, memory.restart().keysRecovered());
        }
    }

    @Test
    void aRestartedNodeSplitsItsIndexAsItLoadsMoreKeysThanOneSubtableHolds(@TempDir final Path data)
    {
        final MemoryNodeContext small =
            new MemoryNodeContext().indexGroups(1).maxGlobalDepth(8).chunkBytes(2 << 20).heapChunks(8)
            .dataDir(data);
        try (RestartableNode memory = new RestartableNode(small);
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            for (int i = 0; i < 300; i++)
            {
                client.put(bytes("s" + i), bytes("v" + i));
            }
            assertEquals(300, memory.restart().keysRecovered());
            assertArrayEquals(bytes("v0"), KvCluster.afterRestart(() -> client.get(bytes("s0"))));
            for (int i = 1; i < 300; i++)
            {
                assertArrayEquals(bytes("v" + i), client.get(bytes("s" + i)), "s" + i);
            }
        }
    }

    @Test
    void durabilityIsRefusedByANodeThatKeepsNothingOnDisk()
    {
        try (Raas memoryRaas = raas(NODE);
            MemoryNode ignored = MemoryNode.start(memoryRaas, node(null));
            Raas clientRaas = raas(CLIENT))
        {
            final KvException refused =
                assertThrows(KvException.class, () -> connect(clientRaas, Durability.SYNC));
            assertTrue(refused.getMessage().contains("memory node 7 keeps nothing on disk"), refused.getMessage());
            connect(clientRaas, Durability.NONE).close();
        }
    }
}

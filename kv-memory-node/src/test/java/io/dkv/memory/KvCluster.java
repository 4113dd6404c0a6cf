package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory nodes and a client node, each with an embedded driver, sharing a directory: the usual
 * setting of a store test.
 */
final class KvCluster implements AutoCloseable
{
    static final long MEMORY_NODE_ID = 1;
    static final long CLIENT_NODE_ID = 100;

    final StaticDirectory directory = new StaticDirectory();
    final List<Raas> memoryRaases = new ArrayList<>();
    final List<MemoryNode> memoryNodes = new ArrayList<>();
    /** The first memory node and its driver. */
    final Raas memoryRaas;
    final MemoryNode memoryNode;
    final Raas clientRaas;
    final KvClient client;

    KvCluster(final String provider)
    {
        this(provider, 1, UnaryOperator.identity());
    }

    KvCluster(final String provider, final UnaryOperator<MemoryNodeContext> tune)
    {
        this(provider, 1, tune);
    }

    /** @param memoryNodeCount memory nodes, ids 1 to count. */
    KvCluster(final String provider, final int memoryNodeCount, final UnaryOperator<MemoryNodeContext> tune)
    {
        final long[] ids = new long[memoryNodeCount];
        int graceMs = Integer.MAX_VALUE;
        for (int i = 0; i < memoryNodeCount; i++)
        {
            ids[i] = MEMORY_NODE_ID + i;
            final Raas raas = RaasDriver.start(context(provider, ids[i]).role(NodeRecord.ROLE_MEMORY), directory);
            memoryRaases.add(raas);
            final MemoryNodeContext nodeContext =
                tune.apply(new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8));
            graceMs = Math.min(graceMs, nodeContext.graceMs());
            memoryNodes.add(MemoryNode.start(raas, nodeContext));
        }
        memoryRaas = memoryRaases.get(0);
        memoryNode = memoryNodes.get(0);
        clientRaas = RaasDriver.start(context(provider, CLIENT_NODE_ID), directory);
        // operations must time out before the nodes reuse replaced blocks
        client = KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(ids).timeoutMs(Math.min(5_000, graceMs / 2)));
    }

    /**
     * The result of an operation a client may have to repeat once after a memory node restarted: its
     * first attempt can fail while it finds the node's new regions.
     */
    static byte[] afterRestart(final java.util.function.Supplier<byte[]> operation)
    {
        io.dkv.client.KvException last = null;
        for (int attempt = 0; attempt < 5; attempt++)
        {
            try
            {
                return operation.get();
            }
            catch (final io.dkv.client.KvException ex)
            {
                last = ex;
            }
        }
        throw last;
    }

    /** @return how many committed slots hold each key in the first memory node's index. */
    Map<String, Integer> committedSlotsByKey()
    {
        return IndexInspector.committedSlotsByKey(index(), memoryRaas.localMemory(memoryNode.heapRegion()));
    }

    /** @return the first memory node's heap, in its own memory. */
    MemorySegment heap()
    {
        return memoryRaas.localMemory(memoryNode.heapRegion());
    }

    /** @return the tentative slots left in the first memory node's index. */
    int tentativeSlots()
    {
        return IndexInspector.tentativeSlots(index());
    }

    /** @return the first memory node's index, in its own memory. */
    MemorySegment index()
    {
        return memoryRaas.localMemory(memoryNode.indexRegion());
    }

    /** Wait for what the memory node does by itself (a scan, a reclamation), failing after ten seconds. */
    static void awaitTrue(final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < deadline, "not within 10 s");
            Thread.sleep(10);
        }
    }

    static RaasContext context(final String provider, final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId)
            .receiveBuffers(64)
            .requestSlots(1024)
            .timeoutMs(10_000);
    }

    public void close()
    {
        client.close();
        memoryNodes.forEach(MemoryNode::close);
        clientRaas.close();
        memoryRaases.forEach(Raas::close);
    }
}

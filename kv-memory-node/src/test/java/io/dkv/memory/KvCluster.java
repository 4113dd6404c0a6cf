package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.verbs.VerbsContext;

import java.util.function.UnaryOperator;

/**
 * A memory node and a client node, each with an embedded driver, sharing a directory: the usual
 * setting of a store test.
 */
final class KvCluster implements AutoCloseable
{
    static final long MEMORY_NODE_ID = 1;
    static final long CLIENT_NODE_ID = 2;

    final StaticDirectory directory = new StaticDirectory();
    final Raas memoryRaas;
    final Raas clientRaas;
    final MemoryNode memoryNode;
    final KvClient client;

    KvCluster(final String provider)
    {
        this(provider, UnaryOperator.identity());
    }

    KvCluster(final String provider, final UnaryOperator<MemoryNodeContext> tune)
    {
        memoryRaas = Raas.embedded(context(provider, MEMORY_NODE_ID), directory);
        clientRaas = Raas.embedded(context(provider, CLIENT_NODE_ID), directory);
        memoryNode = MemoryNode.start(memoryRaas, tune.apply(new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8)));
        client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(MEMORY_NODE_ID).timeoutMs(10_000));
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
        memoryNode.close();
        clientRaas.close();
        memoryRaas.close();
    }
}

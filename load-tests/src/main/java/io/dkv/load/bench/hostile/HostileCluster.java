package io.dkv.load.bench.hostile;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.meta.MetaServer;
import io.dkv.meta.MetaServerContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectoryContext;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.tcp.TcpDevice;
import org.agrona.CloseHelper;

import java.nio.file.Path;

/**
 * The cluster under attack, in this JVM, on the tcp provider over loopback: a MetaServer, a memory
 * node and a client node, each with a NIC engine of its own that any process on the host can
 * connect to, as any host on a network could.
 */
final class HostileCluster implements AutoCloseable
{
    static final long META_ID = 100;
    static final long MEMORY_ID = 1;
    static final long CLIENT_ID = 2;
    static final long NEWCOMER_ID = 3;
    private static final int TIMEOUT_MS = 5_000;

    private final MetaServer meta;
    private final Raas memoryRaas;
    private final MemoryNode memoryNode;
    private final Raas clientRaas;
    private final KvClient client;

    private final byte[] secret;

    HostileCluster(final Path dataDir)
    {
        secret = ClusterSecret.generate(dataDir.resolve("cluster-secret"));
        MetaServer startedMeta = null;
        Raas startedMemory = null;
        MemoryNode startedNode = null;
        Raas startedClient = null;
        try
        {
            final MetaServerContext metaContext = new MetaServerContext().nodeId(META_ID)
                .dataDir(dataDir.resolve("meta"))
                .clusterSecret(secret);
            metaContext.raas().verbs(tcp()).timeoutMs(TIMEOUT_MS);
            startedMeta = MetaServer.start(metaContext);
            startedMemory =
                RaasDriver.start(node(MEMORY_ID).role(NodeRecord.ROLE_MEMORY), directory(startedMeta, secret));
            startedNode = MemoryNode.start(startedMemory, new MemoryNodeContext().indexGroups(1024).heapChunks(64));
            startedClient = RaasDriver.start(node(CLIENT_ID), directory(startedMeta, secret));
            client = KvClient.connect(startedClient, new KvClientContext().memoryNodes(MEMORY_ID)
                .timeoutMs(TIMEOUT_MS));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(startedClient, startedNode, startedMemory, startedMeta);
            throw ex;
        }
        meta = startedMeta;
        memoryRaas = startedMemory;
        memoryNode = startedNode;
        clientRaas = startedClient;
    }

    private static VerbsContext tcp()
    {
        return new VerbsContext().provider("tcp").tcpAddress("127.0.0.1:0");
    }

    private static RaasContext node(final long nodeId)
    {
        return new RaasContext().verbs(tcp()).nodeId(nodeId).timeoutMs(TIMEOUT_MS);
    }

    private static MetaDirectory directory(final MetaServer meta, final byte[] secret)
    {
        return new MetaDirectory(new MetaDirectoryContext().clusterSecret(secret).endpoints(meta.endpoint()));
    }

    /**
     * A node joins the cluster now, as a new memory node would: it registers with the MetaServer and
     * reads the directory, then leaves.
     *
     * @return how long joining took, in nanoseconds.
     */
    long joinNewNode(final long nodeId)
    {
        final long start = System.nanoTime();
        try (Raas joined = RaasDriver.start(node(nodeId), directory(meta, secret)))
        {
            joined.nodes(NodeRecord.ROLE_MEMORY);
            return System.nanoTime() - start;
        }
    }

    RaasDriver metaDriver()
    {
        return (RaasDriver)meta.raas();
    }

    KvClient client()
    {
        return client;
    }

    MetaServer meta()
    {
        return meta;
    }

    MemoryNode memoryNode()
    {
        return memoryNode;
    }

    NodeRecord memoryRecord()
    {
        return memoryRaas.self();
    }

    TcpDevice memoryDevice()
    {
        return (TcpDevice)((RaasDriver)memoryRaas).device();
    }

    TcpDevice metaDevice()
    {
        return (TcpDevice)((RaasDriver)meta.raas()).device();
    }

    public void close()
    {
        CloseHelper.quietCloseAll(client, clientRaas, memoryNode, memoryRaas, meta);
    }
}

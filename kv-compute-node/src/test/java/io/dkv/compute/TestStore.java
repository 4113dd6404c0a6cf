package io.dkv.compute;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A store in this JVM for the tests: one memory node (or several) and a client on the shm provider, found through a
 * shared static directory, and a compute node serving that client on a free loopback port. The memory nodes and the
 * client judge expiry by one clock, which a test may move itself.
 */
final class TestStore implements AutoCloseable
{
    // not final: close lets them go, for a test class keeps its store in a static field (or an extension's) until
    // the JVM ends, and each driver holds some 8 MB of connection table: closed stores kept whole filled a 2 GB heap
    private Raas[] memoryRaas;
    private Raas clientRaas;
    private MemoryNode[] memoryNodes;
    private final long[] memoryIds;
    private KvClient client;
    private ComputeNode computeNode;

    TestStore(final ComputeNodeContext computeNode)
    {
        this(computeNode, SystemEpochClock.INSTANCE, 0);
    }

    TestStore(final ComputeNodeContext computeNode, final int port)
    {
        this(computeNode, SystemEpochClock.INSTANCE, port);
    }

    /**
     * Far ahead of the real clock: a store whose clock is held there expires nothing that another clock (the
     * memory node's own sweep) judges before a test moves it.
     */
    /** The memory node's chunks of 4 MiB by default. */
    static final int HEAP_CHUNKS = 48;

    static final long YEAR_2100_MILLIS = 4_102_444_800_000L;

    /** @return a store whose client and memory node judge expiry by {@code clock}, first held at 2100. */
    static TestStore withClockHeldAt2100(final CachedEpochClock clock)
    {
        clock.update(YEAR_2100_MILLIS);
        return new TestStore(new ComputeNodeContext(), clock);
    }

    TestStore(final ComputeNodeContext computeNode, final EpochClock epochClock)
    {
        this(computeNode, epochClock, 0);
    }

    TestStore(final ComputeNodeContext computeNode, final EpochClock epochClock, final int port)
    {
        this(computeNode, epochClock, port, HEAP_CHUNKS);
    }

    /** @param heapChunks the memory node's chunks of 4 MiB. */
    TestStore(final ComputeNodeContext computeNode, final EpochClock epochClock, final int port, final int heapChunks)
    {
        this(computeNode, epochClock, port, heapChunks, 1);
    }

    /**
     * @param heapChunks  each memory node's chunks of 4 MiB.
     * @param memoryNodes how many memory nodes hold the keys, spread by the client's rendezvous hashing.
     */
    TestStore(final ComputeNodeContext computeNode, final EpochClock epochClock, final int port, final int heapChunks,
        final int memoryNodes)
    {
        final StaticDirectory directory = new StaticDirectory();
        final long firstId = ThreadLocalRandom.current().nextLong(1_000, 1L << 40);
        memoryRaas = new Raas[memoryNodes];
        this.memoryNodes = new MemoryNode[memoryNodes];
        memoryIds = new long[memoryNodes];
        for (int i = 0; i < memoryNodes; i++)
        {
            memoryIds[i] = firstId + i;
            memoryRaas[i] = RaasDriver.start(driver(memoryIds[i]), directory);
            this.memoryNodes[i] = MemoryNode.start(memoryRaas[i],
                new MemoryNodeContext().indexGroups(1024).chunkBytes(4 << 20).heapChunks(heapChunks)
                    .epochClock(epochClock));
        }
        clientRaas = RaasDriver.start(driver(firstId + memoryNodes), directory);
        client = KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(memoryIds).timeoutMs(5_000).epochClock(epochClock));
        this.computeNode =
            ComputeNode.start(computeNode.client(client).port(port).bindAddress("127.0.0.1").ioThreads(1));
    }

    private static RaasContext driver(final long nodeId)
    {
        return new RaasContext().verbs(new VerbsContext().provider("shm")).nodeId(nodeId).timeoutMs(5_000);
    }

    int port()
    {
        return computeNode.port();
    }

    KvClient client()
    {
        return client;
    }

    /** @return the memory nodes' ids, in the order the client was given them. */
    long[] memoryIds()
    {
        return memoryIds.clone();
    }

    ComputeNode computeNode()
    {
        return computeNode;
    }

    public void close()
    {
        if (computeNode == null)
        {
            return;
        }
        computeNode.close();
        client.close();
        CloseHelper.closeAll(memoryNodes);
        clientRaas.close();
        CloseHelper.closeAll(memoryRaas);
        computeNode = null;
        client = null;
        memoryNodes = null;
        clientRaas = null;
        memoryRaas = null;
    }
}

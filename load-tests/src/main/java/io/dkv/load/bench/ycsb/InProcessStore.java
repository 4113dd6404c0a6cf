package io.dkv.load.bench.ycsb;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.verbs.VerbsContext;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A dkv store in this JVM: one or more memory nodes, each with an embedded driver on the {@code shm}
 * provider, and a client over one or more lanes (embedded drivers of its own), finding each other
 * through a shared directory. The client reaches the memory nodes' indexes and heaps exactly as a
 * client on another host would, through RaaS, and keeps as many copies of each key as it is told
 * (the directory is static: there is no MetaServer to keep a replica count).
 */
public final class InProcessStore implements AutoCloseable
{
    /** The first memory node; the others follow it, below the client's lanes. */
    public static final long MEMORY_NODE_ID = 1;
    /** The client's first lane; the others follow it. Above every memory node ({@link #MAX_MEMORY_NODES}). */
    public static final long CLIENT_NODE_ID = 101;
    public static final int MAX_MEMORY_NODES = 100;
    static final String PROVIDER = "shm";
    /** Shorter than the memory node's grace period (10 s), as a client's timeout must be. */
    static final int TIMEOUT_MS = 5_000;

    private final List<Raas> memoryRaas = new ArrayList<>();
    private final List<Raas> clientLanes = new ArrayList<>();
    private final List<MemoryNode> memoryNodes = new ArrayList<>();
    private final KvClient client;
    private final MemoryNodeContext memoryNodeContext;

    private InProcessStore(
        final MemoryNodeContext memoryNodeContext, final int lanes, final int memoryNodeCount, final int replicas,
        final String provider)
    {
        if (memoryNodeCount < 1 || memoryNodeCount > MAX_MEMORY_NODES || replicas < 1 || replicas > memoryNodeCount)
        {
            throw new IllegalArgumentException(String.format("%d replicas on %d memory nodes: a store has 1..%d " +
                "memory nodes and 1..that many replicas", replicas, memoryNodeCount, MAX_MEMORY_NODES));
        }
        final StaticDirectory directory = new StaticDirectory();
        this.memoryNodeContext = memoryNodeContext;
        final long[] memoryNodeIds = new long[memoryNodeCount];
        KvClient connected = null;
        try
        {
            for (int i = 0; i < memoryNodeCount; i++)
            {
                memoryNodeIds[i] = MEMORY_NODE_ID + i;
                // the directory's membership lists the nodes of this role, each live: a replicated write goes only
                // to members that serve
                memoryRaas.add(
                    RaasDriver.start(driver(memoryNodeIds[i], provider).role(NodeRecord.ROLE_MEMORY), directory));
            }
            for (int lane = 0; lane < lanes; lane++)
            {
                clientLanes.add(RaasDriver.start(driver(CLIENT_NODE_ID + lane, provider), directory));
            }
            for (final Raas memory : memoryRaas)
            {
                memoryNodes.add(MemoryNode.start(memory, memoryNodeContext));
            }
            connected = KvClient.connect(clientLanes,
                new KvClientContext().memoryNodes(memoryNodeIds).replicas(replicas).timeoutMs(TIMEOUT_MS));
            // the client keeps at most one copy per node it knows: a count it lowered would measure the wrong thing
            if (connected.replicas() != replicas)
            {
                throw new IllegalStateException(String.format("the client keeps %d copies of a key where %d were " +
                    "asked, over memory nodes %s", connected.replicas(), replicas, Arrays.toString(memoryNodeIds)));
            }
        }
        catch (final RuntimeException ex)
        {
            try
            {
                closeQuietly(connected);
                closeQuietly(memoryNodes.toArray(AutoCloseable[]::new));
                closeQuietly(memoryRaas.toArray(AutoCloseable[]::new));
                closeQuietly(clientLanes.toArray(AutoCloseable[]::new));
            }
            catch (final RuntimeException closing)
            {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
        this.client = connected;
    }

    /**
     * @param memoryNode the memory node's index and heap.
     */
    public static InProcessStore start(final MemoryNodeContext memoryNode)
    {
        return start(memoryNode, 1);
    }

    /**
     * @param memoryNode the memory node's index and heap.
     * @param lanes      client drivers the client spreads its threads over
     *                   ({@link KvClient#connect(List, KvClientContext)}).
     */
    public static InProcessStore start(final MemoryNodeContext memoryNode, final int lanes)
    {
        return start(memoryNode, lanes, 1, 1);
    }

    /**
     * @param memoryNode      each memory node's index and heap.
     * @param lanes           client drivers the client spreads its threads over.
     * @param memoryNodeCount memory nodes, each with a driver of its own.
     * @param replicas        copies the client keeps of each key, on as many of the memory nodes
     *                        ({@link KvClientContext#replicas(int)}): 1..memoryNodeCount.
     */
    public static InProcessStore start(
        final MemoryNodeContext memoryNode, final int lanes, final int memoryNodeCount, final int replicas)
    {
        return start(memoryNode, lanes, memoryNodeCount, replicas, PROVIDER);
    }

    /**
     * As {@link #start(MemoryNodeContext, int, int, int)}, over {@code provider}'s software NIC (shm or tcp, the
     * latter on 127.0.0.1).
     */
    public static InProcessStore start(
        final MemoryNodeContext memoryNode, final int lanes, final int memoryNodeCount, final int replicas,
        final String provider)
    {
        return new InProcessStore(memoryNode, lanes, memoryNodeCount, replicas, provider);
    }

    /**
     * @param keys       keys the store will hold at most.
     * @param blockBytes bytes the heap will take at most, summed over every block ever written
     *                   (blocks are written out of place, and a replaced one comes back only after
     *                   the grace period: a run's writes are held whole, so no run waits for room).
     * @param writers    threads that will write: each holds a chunk of its own.
     * @return a memory node for them: an index whose candidate buckets stay far from full (it does
     * not split subtables yet) and a heap with room to spare, but of at most a quarter of the
     * machine's memory (registered memory is resident): longer runs live on reclaimed blocks.
     */
    public static MemoryNodeContext sizedFor(final long keys, final long blockBytes, final int writers)
    {
        return sizedFor(keys, blockBytes, writers, 1);
    }

    /**
     * {@link #sizedFor(long, long, int)} for each of {@code memoryNodes} nodes of this process, any
     * of which may hold every key (with copies, a key is on several), the quarter of the machine's
     * memory shared between them.
     */
    public static MemoryNodeContext sizedFor(
        final long keys, final long blockBytes, final int writers, final int memoryNodes)
    {
        final int chunkBytes = 2 << 20;
        final long slots = keys * 4;
        final long groups = Math.max(64, Long.highestOneBit(Math.max(1, (slots + 20) / 21 - 1)) << 1);
        final long wanted = (blockBytes + blockBytes / 4 + chunkBytes - 1) / chunkBytes + 2L * (writers + 1);
        final long share = physicalMemoryBytes() / 4 / memoryNodes;
        final long chunks = Math.max(Math.min(wanted, share / chunkBytes), 2L * (writers + 1) + 1);
        if (groups > 1 << 24 || chunks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(String.format("a store of %,d keys and %,d B of blocks needs %,d " +
                "index groups (at most 2^24) and %,d heap chunks", keys, blockBytes, groups, chunks));
        }
        return new MemoryNodeContext().indexGroups((int)groups).chunkBytes(chunkBytes).heapChunks((int)chunks);
    }

    /** @return the machine's memory, or 4 GiB where the JVM does not say. */
    private static long physicalMemoryBytes()
    {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os ?
            os.getTotalMemorySize() : 4L << 30;
    }

    private static RaasContext driver(final long nodeId, final String provider)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(provider).tcpAddress("127.0.0.1:0"))
            .nodeId(nodeId)
            .timeoutMs(TIMEOUT_MS);
    }

    public KvClient client()
    {
        return client;
    }

    /** @return the client node's RaaS handle, for reads of the memory node beside the client's. */
    public Raas clientRaas()
    {
        return clientLanes.get(0);
    }

    /** @return the first memory node's RaaS handle, for raw verbs beside its driver. */
    public Raas memoryRaas()
    {
        return memoryRaas.get(0);
    }

    /** @return the first memory node ({@link #MEMORY_NODE_ID}). */
    public MemoryNode memoryNode()
    {
        return memoryNodes.get(0);
    }

    /** @return copies the client keeps of each key. */
    public int replicas()
    {
        return client.replicas();
    }

    /** @return the memory node's settings, for the report. */
    public MemoryNodeContext memoryNodeContext()
    {
        return memoryNodeContext;
    }

    public void close()
    {
        client.close();
        closeQuietly(memoryNodes.toArray(AutoCloseable[]::new));
        closeQuietly(clientLanes.toArray(AutoCloseable[]::new));
        closeQuietly(memoryRaas.toArray(AutoCloseable[]::new));
    }

    private static void closeQuietly(final AutoCloseable... closeables)
    {
        RuntimeException failure = null;
        for (final AutoCloseable closeable : closeables)
        {
            if (closeable == null)
            {
                continue;
            }
            try
            {
                closeable.close();
            }
            catch (final Exception ex)
            {
                if (failure == null)
                {
                    failure = new IllegalStateException("closing the in-process store: " + ex.getMessage(), ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}

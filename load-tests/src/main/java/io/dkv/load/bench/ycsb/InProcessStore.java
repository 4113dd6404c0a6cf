package io.dkv.load.bench.ycsb;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.StaticDirectory;
import io.dkv.verbs.VerbsContext;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * A dkv store in this JVM: one memory node with an embedded driver on the {@code shm} provider, and
 * a client over one or more lanes (embedded drivers of its own), finding each other through a
 * shared directory. The client reaches the memory node's index and heap exactly as a client on
 * another host would, through RaaS.
 */
public final class InProcessStore implements AutoCloseable
{
    public static final long MEMORY_NODE_ID = 1;
    public static final long CLIENT_NODE_ID = 2;
    static final String PROVIDER = "shm";
    /** Shorter than the memory node's grace period (10 s), as a client's timeout must be. */
    static final int TIMEOUT_MS = 5_000;

    private final Raas memoryRaas;
    private final List<Raas> clientLanes = new ArrayList<>();
    private final MemoryNode memoryNode;
    private final KvClient client;
    private final MemoryNodeContext memoryNodeContext;

    private InProcessStore(final MemoryNodeContext memoryNodeContext, final int lanes)
    {
        final StaticDirectory directory = new StaticDirectory();
        this.memoryNodeContext = memoryNodeContext;
        Raas memory = null;
        MemoryNode node = null;
        try
        {
            memory = Raas.embedded(driver(MEMORY_NODE_ID), directory);
            for (int lane = 0; lane < lanes; lane++)
            {
                clientLanes.add(Raas.embedded(driver(CLIENT_NODE_ID + lane), directory));
            }
            node = MemoryNode.start(memory, memoryNodeContext);
            this.client =
                KvClient.connect(clientLanes, new KvClientContext().memoryNodes(MEMORY_NODE_ID).timeoutMs(TIMEOUT_MS));
        }
        catch (final RuntimeException ex)
        {
            try
            {
                closeQuietly(node, memory);
                closeQuietly(clientLanes.toArray(AutoCloseable[]::new));
            }
            catch (final RuntimeException closing)
            {
                ex.addSuppressed(closing);
            }
            throw ex;
        }
        this.memoryRaas = memory;
        this.memoryNode = node;
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
        return new InProcessStore(memoryNode, lanes);
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
        final int chunkBytes = 2 << 20;
        final long slots = keys * 4;
        final long groups = Math.max(64, Long.highestOneBit(Math.max(1, (slots + 20) / 21 - 1)) << 1);
        final long wanted = (blockBytes + blockBytes / 4 + chunkBytes - 1) / chunkBytes + 2L * (writers + 1);
        final long chunks = Math.max(Math.min(wanted, physicalMemoryBytes() / 4 / chunkBytes), 2L * (writers + 1) + 1);
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

    private static RaasContext driver(final long nodeId)
    {
        return new RaasContext()
            .verbs(new VerbsContext().provider(PROVIDER))
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

    public MemoryNode memoryNode()
    {
        return memoryNode;
    }

    /** @return the memory node's settings, for the report. */
    public MemoryNodeContext memoryNodeContext()
    {
        return memoryNodeContext;
    }

    public void close()
    {
        client.close();
        closeQuietly(memoryNode);
        closeQuietly(clientLanes.toArray(AutoCloseable[]::new));
        closeQuietly(memoryRaas);
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

package io.dkv.load.bench.membership;

import io.dkv.client.KvClientConfiguration;
import io.dkv.format.KvBlockLayout;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import io.dkv.memory.MemoryNodeConfiguration;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.driver.RaasDriver;
import io.dkv.raas.meta.ClusterSecret;
import io.dkv.raas.meta.MetaDirectory;
import io.dkv.raas.meta.MetaEndpoint;
import io.dkv.verbs.VerbsContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The cluster the benchmark changes, each role a process of this host: a MetaServer keeping {@code replicas} copies
 * of each key, the founding memory nodes, and later the memory node that joins and the command that drains it. The
 * memory nodes' heaps are sized for the keys with room to spare, since a node holds its share before a change, more
 * while it runs, and written blocks wait out a grace period before their chunks come back.
 */
final class MembershipCluster implements AutoCloseable
{
    static final long FIRST_MEMORY_NODE_ID = 101;
    static final long CLIENT_NODE_ID = 201;
    static final long DRAIN_NODE_ID = 301;
    static final String ROLE_HEAP = "256m";
    private static final long MIN_HEAP_BYTES = 64L << 20;
    private static final int HEAP_SPARE_FACTOR = 2;
    private static final Pattern DRAINING = Pattern.compile("draining memory node (\\d+):");

    private final Path directory;
    private final Path secret;
    private final String provider;
    private final int timeoutMs;
    private final int heapChunks;
    private final int joinerHeapChunks;
    private final List<RoleProcess> started;
    private final String metaEndpoint;

    private MembershipCluster(final Path directory, final Path secret, final String provider, final int timeoutMs,
        final int heapChunks, final int joinerHeapChunks, final List<RoleProcess> started, final String metaEndpoint)
    {
        this.directory = directory;
        this.secret = secret;
        this.provider = provider;
        this.timeoutMs = timeoutMs;
        this.heapChunks = heapChunks;
        this.joinerHeapChunks = joinerHeapChunks;
        this.started = started;
        this.metaEndpoint = metaEndpoint;
    }

    /**
     * @param directory   where the logs, the secret and the MetaServer's data go.
     * @param provider    the verbs provider of every role, shm or tcp.
     * @param memoryNodes founding memory nodes.
     * @param replicas    copies of each key.
     * @param keySpace    the keys the nodes are sized for.
     * @param timeoutMs   the clients' operation timeout, the same in every process: the phases' gap depends on it.
     * @throws IllegalStateException when a role does not start, with its log's end.
     */
    static MembershipCluster start(final Path directory, final String provider, final int memoryNodes,
        final int replicas, final KeySpace keySpace, final int timeoutMs)
    {
        final Path secret = directory.resolve("cluster-secret");
        ClusterSecret.readOrGenerate(secret);
        final int heapChunks = heapChunks(keySpace, memoryNodes, replicas);
        // the joiner holds its share among one node more: a smaller heap, quicker to populate as it starts
        final int joinerHeapChunks = heapChunks(keySpace, memoryNodes + 1, replicas);
        final List<RoleProcess> started = new ArrayList<>();
        try
        {
            // the memory nodes started here found the store together; the one that joins later is added by a change
            final StringJoiner founders = new StringJoiner(",");
            for (int n = 0; n < memoryNodes; n++)
            {
                founders.add(Long.toString(FIRST_MEMORY_NODE_ID + n));
            }
            final RoleProcess meta = RoleProcess.start("MetaServer", ROLE_HEAP, Map.of(),
                List.of("meta", "--node-id", "1", "--provider", provider, "--replicas", Integer.toString(replicas),
                    "--data-dir", directory.resolve("meta-data").toString(),
                    "--cluster-secret-file", secret.toString(), "--founders", founders.toString()),
                ReadyLines.META, directory.resolve("meta.log"));
            started.add(meta);
            final MembershipCluster cluster = new MembershipCluster(directory, secret, provider, timeoutMs, heapChunks,
                joinerHeapChunks, started, meta.readyGroup(1));
            for (int n = 0; n < memoryNodes; n++)
            {
                started.add(cluster.memoryNode(FIRST_MEMORY_NODE_ID + n, false));
            }
            return cluster;
        }
        catch (final RuntimeException ex)
        {
            RoleProcess.closeAll(started);
            throw ex;
        }
    }

    /**
     * @return heap chunks of each memory node: the blocks of its share of every key's copies, twice over, at least
     * {@link #MIN_HEAP_BYTES}.
     */
    static int heapChunks(final KeySpace keySpace, final int memoryNodes, final int replicas)
    {
        final long blockBytes = KvBlockLayout.HEADER_LENGTH + keySpace.bytesPerKey();
        final long share = (long)keySpace.keys() * blockBytes * replicas / memoryNodes;
        final long heapBytes = Math.max(MIN_HEAP_BYTES, share * HEAP_SPARE_FACTOR);
        final long chunks = (heapBytes + MemoryNodeConfiguration.CHUNK_BYTES_DEFAULT - 1) /
            MemoryNodeConfiguration.CHUNK_BYTES_DEFAULT;
        if (chunks > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(keySpace + " on " + memoryNodes + " memory nodes at " + replicas +
                " copies needs " + chunks + " heap chunks a node");
        }
        return (int)chunks;
    }

    /** @return bytes of each founding memory node's heap. */
    long heapBytes()
    {
        return (long)heapChunks * MemoryNodeConfiguration.CHUNK_BYTES_DEFAULT;
    }

    /** @return bytes of the joining memory node's heap. */
    long joinerHeapBytes()
    {
        return (long)joinerHeapChunks * MemoryNodeConfiguration.CHUNK_BYTES_DEFAULT;
    }

    /**
     * Start a memory node that asks to join and drives its own add; returns once it serves, while the change runs.
     */
    RoleProcess join(final long nodeId)
    {
        final RoleProcess node = memoryNode(nodeId, true);
        started.add(node);
        return node;
    }

    /**
     * Start {@code memory-node --drain nodeId}; returns once it has begun the drain, which it drives until it exits.
     */
    RoleProcess drain(final long nodeId)
    {
        return RoleProcess.start("drain of memory node " + nodeId, ROLE_HEAP, clientProperties(),
            List.of("memory-node", "--node-id", Long.toString(DRAIN_NODE_ID), "--provider", provider,
                "--meta", metaEndpoint, "--cluster-secret-file", secret.toString(),
                "--drain", Long.toString(nodeId)),
            DRAINING, directory.resolve("drain-" + nodeId + ".log"));
    }

    /** @return a driver in this process, its directory the MetaServer's, for the benchmark's client. */
    Raas clientRaas()
    {
        final VerbsContext verbs = new VerbsContext().provider(provider);
        if ("tcp".equals(provider))
        {
            verbs.tcpAddress("127.0.0.1:0");
        }
        return RaasDriver.start(new RaasContext().verbs(verbs).nodeId(CLIENT_NODE_ID).timeoutMs(timeoutMs),
            MetaDirectory.of(secret, MetaEndpoint.parse(metaEndpoint)));
    }

    private RoleProcess memoryNode(final long nodeId, final boolean join)
    {
        final List<String> arguments = new ArrayList<>(List.of("memory-node", "--node-id", Long.toString(nodeId),
            "--provider", provider, "--meta", metaEndpoint, "--cluster-secret-file", secret.toString(),
            "--heap-chunks", Integer.toString(join ? joinerHeapChunks : heapChunks)));
        if (join)
        {
            arguments.add("--join");
        }
        return RoleProcess.start("memory node " + nodeId, ROLE_HEAP, clientProperties(), arguments,
            ReadyLines.MEMORY_NODE, directory.resolve("memory-node-" + nodeId + ".log"));
    }

    /** The change's driver waits a client's operation timeout between phases: it must be the clients' own. */
    private Map<String, String> clientProperties()
    {
        return Map.of(KvClientConfiguration.TIMEOUT_MS_PROP_NAME, Integer.toString(timeoutMs));
    }

    public void close()
    {
        RoleProcess.closeAll(started);
    }
}

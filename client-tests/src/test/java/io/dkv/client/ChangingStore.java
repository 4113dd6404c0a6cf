package io.dkv.client;

import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A store of memory nodes 1 to 3 in one JVM (shm) that a test adds memory node 4 to by hand, phase by phase, through
 * a directory it sets: the memberships of each phase, clients and sessions over all four, and the test's keys.
 */
final class ChangingStore implements AutoCloseable
{
    static final long[] BEFORE = {1, 2, 3};
    static final long ADDED = 4;
    static final long[] ALL = {1, 2, 3, ADDED};
    /** Node 4 placed after the change only: the keys whose placement names it move onto it. */
    static final int[] ADDING = {Membership.PLACED, Membership.PLACED, Membership.PLACED, Membership.PLACED_AFTER};
    static final int LEASE_MS = 300;
    static final int TIMEOUT_MS = 1_000;

    final StaticDirectory directory = new StaticDirectory();
    /**
     * Each node's heap: 64 chunks of 1 MiB unless a test asks for less (a node's memory stays mapped until the JVM that
     * read it ends, so the tests of one run add up).
     */
    private int chunkBytes = 1 << 20;
    private int heapChunks = 64;
    final Opened open = new Opened();

    /** Give the nodes started from now on heaps of {@code heapChunks} chunks of {@code chunkBytes}. */
    ChangingStore heaps(final int chunkBytes, final int heapChunks)
    {
        this.chunkBytes = chunkBytes;
        this.heapChunks = heapChunks;
        return this;
    }

    /** Start memory nodes 1 to 3, with no change running. */
    ChangingStore start(final int replicas)
    {
        for (final long id : BEFORE)
        {
            startNode(id);
        }
        directory.membership(steady(1, replicas, BEFORE));
        return this;
    }

    void startNode(final long id)
    {
        final Raas raas = open.add(RaasDriver.start(Opened.driver("shm", id).role(NodeRecord.ROLE_MEMORY), directory));
        open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(chunkBytes)
            .heapChunks(heapChunks)));
    }

    /** @return a client of its own driver, node {@code nodeId}. */
    KvClient connect(final long nodeId)
    {
        return open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", nodeId), directory)),
            clientContext()));
    }

    /** @return a session of its own driver, node {@code nodeId}, over all four memory nodes. */
    KvSession session(final long nodeId)
    {
        return open.add(Opened.session(open.add(RaasDriver.start(Opened.driver("shm", nodeId), directory)),
            clientContext(), ALL));
    }

    /** Node 4 added, started, and the change in {@code phase}; waits until every client acts in it. */
    void phase(final long epoch, final int replicas, final int phase, final KvClient client) throws InterruptedException
    {
        directory.membership(changing(epoch, replicas, ADDING, phase));
        Thread.sleep(client.membershipPhaseGapMs());
    }

    static KvClientContext clientContext()
    {
        return new KvClientContext().timeoutMs(TIMEOUT_MS).unavailableRetryMs(0).membershipRefreshMs(50)
            .membershipLeaseMs(LEASE_MS).maxRetries(1_000).conclude();
    }

    static Membership changing(final long epoch, final int replicas, final int[] placements, final int phase)
    {
        final int[] live = new int[ALL.length];
        Arrays.fill(live, Membership.LIVE);
        return new Membership(epoch, replicas, ALL, live, new long[ALL.length], placements, phase);
    }

    static Membership steady(final long epoch, final int replicas, final long[] members)
    {
        final int[] live = new int[members.length];
        Arrays.fill(live, Membership.LIVE);
        return new Membership(epoch, replicas, members, live);
    }

    /** @return the keys among the first {@code keys} whose placement after the change names node 4. */
    static int[] movingKeys(final KvClient client, final int keys)
    {
        return java.util.stream.IntStream.range(0, keys)
            .filter(k -> Arrays.stream(client.replicasOf(key(k))).anyMatch(id -> id == ADDED)).toArray();
    }

    /** The test's nodes are 1 to 4, at 0 to 3 in every client's list. */
    static int indexOf(final long id)
    {
        return (int)id - 1;
    }

    static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    public void close() throws Exception
    {
        open.close();
    }
}

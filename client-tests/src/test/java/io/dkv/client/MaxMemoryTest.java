package io.dkv.client;

import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.format.HeapLayout;
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeContext;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pool's maxmemory ({@link KvClient#maxMemory(long)}): each memory node hands out at most its share, by capacity,
 * to writes other than frees; a write past it is refused as at full while reads and deletes go on; 0 lifts it; and a
 * node that comes back without a limit is given its share of what the others hold.
 */
@Timeout(120)
class MaxMemoryTest
{
    private static final long[] NODES = {1, 2};
    private static final int MIB = 1 << 20;

    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @Test
    void eachNodeHandsOutItsShareByCapacityAndWritesPastItAreRefused()
    {
        // node 1: 8 chunks of 1 MiB, node 2: 16; 6 MiB of maxmemory is 2 MiB of the one and 4 MiB of the other
        final AtomicInteger made = new AtomicInteger();
        final List<MemoryNode> nodes = new ArrayList<>();
        final KvClient client = open.store(new StaticDirectory(), NODES, 1, new KvClientContext(),
            () -> new MemoryNodeContext().indexGroups(64).chunkBytes(MIB)
                .heapChunks(made.getAndIncrement() == 0 ? 8 : 16), nodes);
        assertEquals(0, client.maxMemory(), "none at start");
        client.maxMemory(6L * MIB);
        final List<MemoryNodeHeap> heaps = client.memoryNodeHeaps();
        final long share = heaps.getFirst().limit();
        assertTrue(Math.abs(share - 2L * MIB) < MIB / 8 && Math.abs(heaps.get(1).limit() - 2 * share) <= 64,
            "shares by capacity: " + heaps);
        assertTrue(Math.abs(client.maxMemory() - 6L * MIB) <= 128, "read back: " + client.maxMemory());

        final byte[] value = new byte[10_000];
        int written = 0;
        MemoryFullException refused = null;
        while (refused == null)
        {
            assertTrue(written < 1_000, "6 MiB takes no more than 1,000 values of 10 KB");
            try
            {
                client.put(key(written), value);
                written++;
            }
            catch (final MemoryFullException ex)
            {
                refused = ex;
            }
        }
        // keys spread evenly over the nodes: the smaller share ends the run, some 200 values into it
        assertTrue(written > 250, written + " values of 10 KB before the limit of 6 MiB");
        for (final MemoryNodeHeap heap : client.memoryNodeHeaps())
        {
            assertTrue(heap.handedOut() <= heap.limit(), "within its limit: " + heap);
        }
        assertEquals(1, refused.nodeId(), "the node of the smaller share: " + refused.getMessage());
        assertNotNull(client.get(key(0)), "reads at the limit");
        assertTrue(client.delete(key(1)), "deletes at the limit");

        client.maxMemory(0);
        assertEquals(0, client.maxMemory());
        assertEquals(HeapLayout.LIMIT_NONE, client.memoryNodeHeaps().getFirst().limit());
        client.put(key(written), value);
        assertThrows(IllegalArgumentException.class, () -> client.maxMemory(-1));
    }

    @Test
    void aNodeThatComesBackWithoutALimitIsGivenItsShare() throws Exception
    {
        final StaticDirectory directory = new StaticDirectory();
        final KvClient client = open.store(directory, NODES, 1, new KvClientContext());
        client.maxMemory(8L * MIB);
        final long[] before = limits(client);
        assertTrue(before[0] > 0 && before[0] == before[1], "equal nodes, equal shares: " + before[0]);

        // a third node of the same size joins the pool's directory as a client would meet it: none asked it a limit
        final Raas raas = open.add(RaasDriver.start(Opened.driver("shm", 3).role(NodeRecord.ROLE_MEMORY), directory));
        open.add(MemoryNode.start(raas, new MemoryNodeContext().indexGroups(64).chunkBytes(1 << 20).heapChunks(16)));
        directory.membership(new Membership(2, 1, new long[] {1, 2, 3},
            new int[] {Membership.LIVE, Membership.LIVE, Membership.LIVE}));
        final KvClient later = open.add(KvClient.connect(open.add(RaasDriver.start(Opened.driver("shm", 101),
            directory)), new KvClientContext().memoryNodes(1, 2, 3).replicas(1)));
        final List<MemoryNodeHeap> heaps = later.memoryNodeHeaps();
        assertEquals(HeapLayout.LIMIT_NEVER_SET, heaps.get(2).limit(), "the new node: " + heaps);
        assertEquals(12L * MIB, later.maxMemory(), 256, "the pool's setting over its capacity, the new node's too");

        assertEquals(1, later.giveMissingHeapLimits(heaps));
        assertEquals(0, later.giveMissingHeapLimits(later.memoryNodeHeaps()), "once");
        final long[] after = limits(later);
        assertEquals(before[0], after[2], 64, "its share, as the others'");
        assertEquals(before[0], after[0], "the others' stay");
    }

    private static long[] limits(final KvClient client)
    {
        return client.memoryNodeHeaps().stream().mapToLong(MemoryNodeHeap::limit).toArray();
    }

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}

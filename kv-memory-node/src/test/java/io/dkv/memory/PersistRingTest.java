package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.PersistRingLayout;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread that holds its PERSISTs under durability async (a compute node's event loop under appendfsync everysec)
 * tells each node of them through a persist ring the node reads each turn, not in messages: every block written
 * there reaches the disk, across many laps of the ring, from a client that went away before the node read them, and
 * from a client whose ring had no room (it waits for the node to take it).
 */
class PersistRingTest
{
    private static final long NODE = 8;
    private static final long CLIENT = 80;
    private static final int KEYS = 20_000;

    private final StaticDirectory directory = new StaticDirectory();

    private static byte[] key(final int i)
    {
        return ("ring-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private static MemoryNodeContext node(final Path data, final int chunkBytes, final IdleStrategy idle)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(chunkBytes).heapChunks((32 << 20) / chunkBytes)
            .dataDir(data).idleStrategyInstance(idle);
    }

    /** The request server's idle strategy, which a test may hold: the node then reads nothing, rings included. */
    private static final class Holdable implements IdleStrategy
    {
        volatile boolean held;
        volatile boolean holding;

        public void idle(final int workCount)
        {
            while (held)
            {
                holding = true;
                LockSupport.parkNanos(100_000);
            }
            holding = false;
            if (workCount == 0)
            {
                LockSupport.parkNanos(100_000);
            }
        }

        public void idle()
        {
            idle(0);
        }

        public void reset()
        {
        }
    }

    private long counter(final MemoryNode node, final MemoryNodeCounter counter)
    {
        return node.counters().get(counter).get();
    }

    @Test
    void everyBlockWrittenIntoTheRingOverManyLapsReachesTheDisk(@TempDir final Path data) throws Exception
    {
        final MemoryNodeContext context = node(data, 2 << 20, new Holdable());
        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, context))
        {
            try (Raas clientRaas = raas(CLIENT);
                KvClient client = KvClient.connect(clientRaas,
                    new KvClientContext().memoryNodes(NODE).durability(Durability.ASYNC)))
            {
                client.deferPersists();
                for (int i = 0; i < KEYS; i++)
                {
                    client.put(key(i), key(i));
                    if (i % 100 == 99)
                    {
                        client.flushPersists();
                    }
                }
                client.flushPersists();
                // a turn counts the entries it took once it has taken them all, and a batch it fills on the way
                // is written before that: both counts are awaited
                KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= KEYS &&
                    counter(node, MemoryNodeCounter.RING_ENTRIES) >= KEYS);
                assertEquals(1, counter(node, MemoryNodeCounter.REQUESTS_PERSIST_RING), "one ring for the thread");
                assertEquals(KEYS, counter(node, MemoryNodeCounter.RING_ENTRIES), "over two laps of its 8,184");
                assertEquals(0, counter(node, MemoryNodeCounter.REQUESTS_PERSIST_BLOCKS), "no message");
            }
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, context))
        {
            assertEquals(KEYS, back.keysRecovered());
        }
    }

    /**
     * The node holds off (its request server stopped between turns) while a client deletes keys through a ring of
     * 508 entries (8 KiB chunks, 16 bytes an entry): the first 500 fill it, and the flush of the next 100 waits for
     * room, no message sent, until the node goes on; then one more delete is written there and the client goes away
     * before the node read it. Each delete is on the disk once the node goes on.
     */
    @Test
    void aRingWithNoRoomIsWaitedOnAndAClientGoneLosesNothingItWroteThere(@TempDir final Path data) throws Exception
    {
        final Holdable idle = new Holdable();
        // a node that keeps no versions: deletes there empty their slots, needing no chunk while the node is held
        // (where versions are kept a delete writes a tombstone, into a chunk the held node would have to hand out)
        final MemoryNodeContext context = node(data, 8192, idle).keepVersions(false);
        final ExecutorService loop = Executors.newSingleThreadExecutor();
        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, context))
        {
            try (Raas clientRaas = raas(CLIENT))
            {
                try (KvClient client = KvClient.connect(clientRaas,
                    new KvClientContext().memoryNodes(NODE).durability(Durability.ASYNC).timeoutMs(8_000)))
                {
                    loop.submit(() ->
                    {
                        for (int i = 0; i < 1_000; i++)
                        {
                            client.put(key(i), key(i));
                        }
                        // as a compute node's loop: notices held until the thread's flush
                        client.deferPersists();
                    }).get();
                    KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 1_000);
                    final long before = counter(node, MemoryNodeCounter.RING_ENTRIES);
                    idle.held = true;
                    KvCluster.awaitTrue(() -> idle.holding);
                    loop.submit(() -> deleteAndFlush(client, 1, 500)).get();
                    final Future<?> full = loop.submit(() -> deleteAndFlush(client, 501, 600));
                    // the node reads nothing while held: the flush can only wait
                    KvCluster.awaitTrue(() -> counter(node, MemoryNodeCounter.RING_ENTRIES) == before);
                    assertFalse(full.isDone(), "a flush into a full ring waits for the node");
                    idle.held = false;
                    full.get();
                    KvCluster.awaitTrue(() -> counter(node, MemoryNodeCounter.RING_ENTRIES) == before + 600);
                    assertEquals(0, counter(node, MemoryNodeCounter.REQUESTS_PERSIST_BLOCKS), "no message");

                    idle.held = true;
                    KvCluster.awaitTrue(() -> idle.holding);
                    loop.submit(() -> deleteAndFlush(client, 601, 601)).get();
                }
                finally
                {
                    // the client is gone, its last delete in its ring unread; released whatever happened, so that the
                    // node can stop
                    idle.held = false;
                    loop.shutdown();
                }
                KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 1_601);
            }
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, context))
        {
            assertEquals(399, back.keysRecovered(), "1,000 put, 601 deleted");
        }
    }

    private static void deleteAndFlush(final KvClient client, final int from, final int to)
    {
        for (int i = from; i <= to; i++)
        {
            assertTrue(client.delete(key(i)));
            if (i % 100 == 0 || i == to)
            {
                client.flushPersists();
            }
        }
    }

    /**
     * A group is taken whole or not at all: entries whole but the one that ends the group not written yet, or written
     * in part, are left where they are (a SYNC's answer comes after the turn that read the ring); once the last is
     * whole the node takes the group and writes its keys in one batch.
     */
    @Test
    void theNodeTakesAGroupOnlyOnceEachOfItsEntriesIsWhole(@TempDir final Path data) throws Exception
    {
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data, 2 << 20, new Holdable()));
            Raas clientRaas = raas(CLIENT);
            KvClient unannounced = KvClient.connect(clientRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.NONE));
            Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
            final long[] blocks = new long[3];
            for (int i = 0; i < blocks.length; i++)
            {
                unannounced.put(key(i), key(i));
                blocks[i] = IndexInspector.committedBlock(index, heap, "ring-" + i);
            }
            final ValueLayout.OfLong longLayout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            final ValueLayout.OfInt intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            final MemorySegment granted = DurabilityTest.call(clientRaas, connection, MemoryNodeProtocol.PERSIST_RING,
                PersistRingLayout.RING_LENGTH, 0, KvBlockLayout.NO_WRITE);
            assertEquals(MemoryNodeProtocol.OK, granted.get(intLayout, MemoryNodeProtocol.STATUS_OFFSET));
            assertEquals(PersistRingLayout.RING_LENGTH, granted.get(intLayout, MemoryNodeProtocol.CHUNK_LENGTH_OFFSET));
            final long ring = granted.get(longLayout, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
            final int entries = PersistRingLayout.entries(PersistRingLayout.RING_LENGTH);
            final long batches = node.persistStats().batches();

            for (int p = 0; p < 2; p++)
            {
                heap.set(longLayout, ring + PersistRingLayout.entryOffset(p, entries),
                    PersistRingLayout.entry(p, entries, blocks[p], false));
                heap.set(longLayout, ring + PersistRingLayout.entryOffset(p, entries) + Long.BYTES,
                    PersistRingLayout.previous(p, entries, KvBlockLayout.NO_WRITE));
            }
            final long last = PersistRingLayout.entry(2, entries, blocks[2], true);
            // the last entry's first twelve bytes, as a WRITE copying upward leaves it part way
            heap.set(longLayout, ring + PersistRingLayout.entryOffset(2, entries), last);
            final long second = PersistRingLayout.previous(2, entries, KvBlockLayout.NO_WRITE);
            heap.set(intLayout, ring + PersistRingLayout.entryOffset(2, entries) + Long.BYTES, (int)(second >>> 32));
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, connection));
            assertEquals(0, counter(node, MemoryNodeCounter.RING_ENTRIES), "no entry of a group not whole");
            assertEquals(0, heap.get(longLayout, ring + PersistRingLayout.CONSUMED_OFFSET));

            heap.set(longLayout, ring + PersistRingLayout.entryOffset(2, entries) + Long.BYTES, second);
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, connection));
            assertEquals(3, counter(node, MemoryNodeCounter.RING_ENTRIES));
            assertEquals(3, heap.get(longLayout, ring + PersistRingLayout.CONSUMED_OFFSET), "read back by the client");
            assertEquals(3, node.persistStats().keysPersisted());
            assertEquals(batches + 1, node.persistStats().batches(), "the group in one write of the key store");
        }
    }

    private static int sync(final Raas raas, final Connection connection)
    {
        return DurabilityTest.call(raas, connection, MemoryNodeProtocol.SYNC, 0, -1, KvBlockLayout.NO_WRITE)
            .get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), MemoryNodeProtocol.STATUS_OFFSET);
    }
}

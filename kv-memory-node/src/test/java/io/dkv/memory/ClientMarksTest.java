package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.node.RingMarks;
import io.dkv.format.IndexLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.SlotWord;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients' marks (kv-memory-node/README.md, "Async across nodes"): a client writes into each of its rings, once an
 * epoch, the epoch through which it told the node of everything, so a node's durable epoch follows its clients' clocks
 * while they write and while they are idle, and never passes a write whose notice is still held; a client whose clock
 * is behind the node's writes above the epoch its ring started at.
 */
class ClientMarksTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;
    private static final long START = 1_767_225_600_000L;
    private static final int EPOCH_MS = 50;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final StaticDirectory directory = new StaticDirectory();
    private final CachedEpochClock nodeClock = new CachedEpochClock();
    private final CachedEpochClock clientClock = new CachedEpochClock();

    ClientMarksTest()
    {
        nodeClock.update(START);
        clientClock.update(START);
    }

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(16).dataDir(data)
            .epochClock(nodeClock).epochMs(EPOCH_MS).fsyncIntervalMs(20);
    }

    private KvClientContext client()
    {
        return new KvClientContext().memoryNodes(NODE).durability(Durability.ASYNC).epochMs(EPOCH_MS)
            .epochClock(clientClock).timeoutMs(5_000);
    }

    private static long durable(final Raas nodeRaas, final MemoryNode node)
    {
        return nodeRaas.localMemory(node.indexRegion()).get(LONG, IndexLayout.DURABLE_EPOCH_OFFSET);
    }

    private void moveClocks(final long millis)
    {
        nodeClock.update(millis);
        clientClock.update(millis);
    }

    @Test
    void anIdleClientsMarksCarryTheNodesDurableEpochOnWithItsClock(@TempDir final Path data) throws Exception
    {
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT))
        {
            final KvClientContext context = client();
            try (KvClient client = KvClient.connect(clientRaas, context))
            {
                client.put(bytes("k"), bytes("v"));
                assertEquals(1, context.ringMarks().rings(), "the ring asked with the thread's first chunk");
                for (final long at : new long[]{START + 1_000, START + 5_000, START + 60_000})
                {
                    moveClocks(at);
                    // nothing written since: the client's marks alone move the node on
                    KvCluster.awaitTrue(() -> durable(nodeRaas, node) == at / EPOCH_MS - 1);
                }
            }
            KvCluster.awaitTrue(() -> context.ringMarks().rings() == 0);
        }
    }

    @Test
    void aWriteWhoseNoticeIsHeldHoldsTheDurableEpochBelowItsOwnUntilItIsTold(@TempDir final Path data)
        throws Exception
    {
        final long written = START / EPOCH_MS;
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            Raas probeRaas = raas(CLIENT + 1);
            Connection probe = probeRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            final KvClientContext context = client();
            try (KvClient client = KvClient.connect(clientRaas, context))
            {
                client.put(bytes("before"), bytes("told at once"));
                // as a compute node's loop: the writes' notices wait for the thread's flush
                client.deferPersists();
                client.put(bytes("held"), bytes("told at the flush"));
                assertTrue(client.holdsPersists());
                moveClocks(START + 5_000);
                final RingMarks marks = context.ringMarks();
                final long before = marks.marksWritten();
                KvCluster.awaitTrue(() -> marks.marksWritten() >= before + 3);
                sync(probeRaas, probe);
                sync(probeRaas, probe);
                assertEquals(written - 1, durable(nodeRaas, node), "held below the held write's epoch " + written);

                client.flushPersists();
                KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 5_000) / EPOCH_MS - 1);
                assertTrue(node.counters().get(MemoryNodeCounter.KEYS_PERSISTED).get() >= 2);
            }
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT); KvClient client = KvClient.connect(clientRaas, client()))
        {
            assertArrayEquals(bytes("told at the flush"), client.get(bytes("held")));
            assertEquals((START + 5_000) / EPOCH_MS, durable(nodeRaas, back),
                "kept on disk by the clean stop, every client gone: the clock's epoch then");
        }
    }

    /**
     * A mark is the client's, not a node's: a notice held for one node holds every node's durable epoch below its
     * write's epoch, so that no node calls an epoch durable while a write of it, elsewhere, may still be lost (the
     * other node's part of a transaction would come back without it).
     */
    @Test
    void aNoticeHeldForOneNodeHoldsEveryNodesDurableEpoch(@TempDir final Path data) throws Exception
    {
        final long other = NODE + 1;
        final long written = START / EPOCH_MS;
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data.resolve("a")));
            Raas otherRaas = raas(other);
            MemoryNode otherNode = MemoryNode.start(otherRaas, node(data.resolve("b")));
            Raas clientRaas = raas(CLIENT);
            Raas probeRaas = raas(CLIENT + 1);
            Connection probe = probeRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
            Connection otherProbe = probeRaas.connect(other, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            final KvClientContext context = client().memoryNodes(NODE, other);
            try (KvClient client = KvClient.connect(clientRaas, context))
            {
                client.deferPersists();
                client.put(bytes("held"), bytes("on one of the two"));
                assertTrue(client.holdsPersists());
                assertEquals(2, context.ringMarks().rings(), "a ring on each node before the write took its epoch");
                moveClocks(START + 5_000);
                final long before = context.ringMarks().marksWritten();
                KvCluster.awaitTrue(() -> context.ringMarks().marksWritten() >= before + 6);
                // each node has taken its ring, marks included, and fsynced: what they say is counted
                for (final Connection each : new Connection[]{probe, otherProbe, probe, otherProbe})
                {
                    sync(probeRaas, each);
                }
                assertEquals(written - 1, durable(nodeRaas, node), "node " + NODE);
                assertEquals(written - 1, durable(otherRaas, otherNode), "node " + other);

                client.flushPersists();
                KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 5_000) / EPOCH_MS - 1 &&
                    durable(otherRaas, otherNode) == (START + 5_000) / EPOCH_MS - 1);
            }
        }
    }

    @Test
    void aWriteCarriedByCompletionsHoldsTheEpochUntilItsNodeTookItsNotice(@TempDir final Path data) throws Exception
    {
        final HeldIdle idle = new HeldIdle();
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data).idleStrategyInstance(idle));
            Raas clientRaas = raas(CLIENT))
        {
            final KvClientContext context = client();
            try (KvClient client = KvClient.connect(clientRaas, context))
            {
                client.put(bytes("first"), bytes("a chunk and a ring"));
                idle.holdAndAwait();
                final CompletableFuture<Void> held = client.putAsync(bytes("async-held"), bytes("not taken yet"));
                // written on its node, its notice sent and not taken: the write holds its slot
                KvCluster.awaitTrue(() -> context.writeEpochs().inFlight() == 1);
                assertFalse(held.isDone());
                idle.release();
                held.join();
                for (int i = 0; i < 20; i++)
                {
                    client.putAsync(bytes("async-" + i), bytes("value " + i)).join();
                }
                // each leaves once its node took its notice: as its future completes, maybe just after the join
                KvCluster.awaitTrue(() -> context.writeEpochs().inFlight() == 0);
                moveClocks(START + 2_000);
                KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 2_000) / EPOCH_MS - 1);
            }
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT); KvClient client = KvClient.connect(clientRaas, client()))
        {
            assertArrayEquals(bytes("not taken yet"), client.get(bytes("async-held")));
            for (int i = 0; i < 20; i++)
            {
                assertArrayEquals(bytes("value " + i), client.get(bytes("async-" + i)));
            }
        }
    }

    @Test
    void aClientWhoseClockIsBehindWritesAboveTheEpochItsRingStartedAt(@TempDir final Path data) throws Exception
    {
        nodeClock.update(START + 60_000);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT))
        {
            final long nodeEpoch = (START + 60_000) / EPOCH_MS - 1;
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == nodeEpoch);
            final KvClientContext context = client();
            try (KvClient client = KvClient.connect(clientRaas, context))
            {
                client.put(bytes("behind"), bytes("a minute"));
                final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
                final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
                final long block = IndexInspector.committedBlock(index, heap, "behind");
                final long epoch = KvBlockLayout.epoch(heap, block);
                assertTrue(epoch > nodeEpoch, "written at " + epoch + ", its clock's " + START / EPOCH_MS +
                    ", the node's durable epoch " + nodeEpoch);
                // its marks go on from there: the node's durable epoch is not taken back
                final long before = context.ringMarks().marksWritten();
                KvCluster.awaitTrue(() -> context.ringMarks().marksWritten() >= before + 3);
                assertTrue(durable(nodeRaas, node) >= nodeEpoch);
            }
        }
    }

    /** Answered once the node wrote and fsynced a batch: a mark it had taken by then counts. */
    @Test
    void aWritersNoticeOfAnEpochTheNodeWroteThroughIsCountedLate(@TempDir final Path data) throws Exception
    {
        final MemoryNodeContext nodeContext = node(data);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, nodeContext);
            Raas clientRaas = raas(CLIENT);
            Raas probeRaas = raas(CLIENT + 1);
            Connection probe = probeRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
            KvClient client = KvClient.connect(clientRaas, client()))
        {
            client.put(bytes("k"), bytes("told in time"));
            sync(probeRaas, probe);
            assertEquals(0, node.counters().get(MemoryNodeCounter.LATE_NOTICES).get(), "a notice of its epoch");

            moveClocks(START + 5_000);
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 5_000) / EPOCH_MS - 1);
            // the same block told again now, as by a writer whose ring the node no longer reads: its epoch is one
            // the node called durable already, so a crash before the next fsync loses it below that epoch
            final LocalIndex index = new LocalIndex(nodeRaas.localMemory(node.indexRegion()),
                nodeRaas.localMemory(node.heapRegion()), nodeContext.indexGroups(), nodeContext.maxGlobalDepth());
            final long block = SlotWord.blockOffset(index.slotWord(index.committedSlotOf(bytes("k"))));
            assertEquals(MemoryNodeProtocol.OK, DurabilityTest.call(probeRaas, probe, MemoryNodeProtocol.PERSIST,
                MemoryNodeProtocol.ANSWER_WHEN_TAKEN | MemoryNodeProtocol.NAMES_PREVIOUS, block,
                KvBlockLayout.NO_WRITE).get(INT, MemoryNodeProtocol.STATUS_OFFSET));
            assertEquals(1, node.counters().get(MemoryNodeCounter.LATE_NOTICES).get());
        }
    }

    private static void sync(final Raas raas, final Connection connection)
    {
        assertEquals(MemoryNodeProtocol.OK, DurabilityTest.call(raas, connection, MemoryNodeProtocol.SYNC, 0, -1,
            KvBlockLayout.NO_WRITE).get(INT, MemoryNodeProtocol.STATUS_OFFSET));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

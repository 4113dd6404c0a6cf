package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.format.IndexLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.format.PersistRingLayout;
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

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A memory node's durable epoch (kv-memory-node/README.md, "Async across nodes"), as its index header publishes it:
 * the least mark of its clients' rings, counted once the node has taken each ring to the mark's position and written
 * and fsynced what it took; a ring starts at the durable epoch of its creation, and with no ring the node counts by
 * its clock. Kept on disk across a restart.
 */
class DurableEpochTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;
    private static final long START = 1_767_225_600_000L;
    private static final int EPOCH_MS = 50;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final StaticDirectory directory = new StaticDirectory();
    private final CachedEpochClock clock = new CachedEpochClock();

    DurableEpochTest()
    {
        clock.update(START);
    }

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(16).dataDir(data)
            .epochClock(clock).epochMs(EPOCH_MS).fsyncIntervalMs(20);
    }

    private static long durable(final Raas nodeRaas, final MemoryNode node)
    {
        return nodeRaas.localMemory(node.indexRegion()).get(LONG, IndexLayout.DURABLE_EPOCH_OFFSET);
    }

    @Test
    void withNoRingTheDurableEpochIsTheNodesClockLessOneEpoch(@TempDir final Path data) throws Exception
    {
        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == START / EPOCH_MS - 1);
            clock.update(START + 1_000);
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 1_000) / EPOCH_MS - 1);
        }
        // a clock gone back: what the restarted node publishes comes from its disk, where its clean stop, with no
        // client left, kept its clock's epoch then: all it was told
        clock.update(START);
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, node(data)))
        {
            assertEquals((START + 1_000) / EPOCH_MS, durable(nodeRaas, back), "kept on disk");
        }
    }

    @Test
    void aRingsMarkCountsOnceTheNodeTookTheRingToItsPositionAndTheLeastMarkIsTheEpoch(@TempDir final Path data)
        throws Exception
    {
        final long ringEpoch;
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient unannounced = KvClient.connect(clientRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.NONE));
            Connection first = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
            Connection second = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == START / EPOCH_MS - 1);
            final long[] blocks = new long[2];
            for (int i = 0; i < blocks.length; i++)
            {
                unannounced.put(key(i), key(i));
                blocks[i] = IndexInspector.committedBlock(index, heap, "epoch-" + i);
            }
            final long ring = ring(clientRaas, first, START / EPOCH_MS - 1);
            final long other = ring(clientRaas, second, START / EPOCH_MS - 1);
            ringEpoch = START / EPOCH_MS - 1;
            final int entries = PersistRingLayout.entries(PersistRingLayout.RING_LENGTH);
            clock.update(START + 10_000);

            // a mark ahead of what the node has taken counts for nothing yet; nor does the clock, with rings held
            mark(heap, ring, 2, ringEpoch + 100);
            mark(heap, other, 0, ringEpoch + 50);
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, first));
            assertEquals(ringEpoch, durable(nodeRaas, node), "ring 1 not taken to its mark's position");

            for (int p = 0; p < 2; p++)
            {
                heap.set(LONG, ring + PersistRingLayout.entryOffset(p, entries),
                    PersistRingLayout.entry(p, entries, blocks[p], p == 1));
                heap.set(LONG, ring + PersistRingLayout.entryOffset(p, entries) + Long.BYTES,
                    PersistRingLayout.previous(p, entries, KvBlockLayout.NO_WRITE));
            }
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, first));
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == ringEpoch + 50);
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, first));
            assertEquals(ringEpoch + 50, durable(nodeRaas, node), "the least of the two rings' marks");

            // a mark read while written fails its check; a lower one changes nothing
            heap.set(LONG, other + PersistRingLayout.MARK_EPOCH_OFFSET, ringEpoch + 300);
            mark(heap, ring, 2, ringEpoch + 40);
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, first));
            assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, first));
            assertEquals(ringEpoch + 50, durable(nodeRaas, node));

            mark(heap, other, 0, ringEpoch + 300);
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == ringEpoch + 100);
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, node(data)))
        {
            // kept on disk by the clean stop, its clients gone: the clock's epoch then (START + 10 s)
            KvCluster.awaitTrue(() -> durable(nodeRaas, back) == (START + 10_000) / EPOCH_MS);
        }
    }

    @Test
    void aRingHoldsTheEpochWhereItStartedUntilItsClientMarksOrGoes(@TempDir final Path data) throws Exception
    {
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT))
        {
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == START / EPOCH_MS - 1);
            try (Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
            {
                ring(clientRaas, connection, START / EPOCH_MS - 1);
                clock.update(START + 5_000);
                assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, connection));
                assertEquals(MemoryNodeProtocol.OK, sync(clientRaas, connection));
                assertEquals(START / EPOCH_MS - 1, durable(nodeRaas, node), "held by a ring that never marked");
            }
            KvCluster.awaitTrue(() -> durable(nodeRaas, node) == (START + 5_000) / EPOCH_MS - 1);
        }
    }

    /** @return the ring's offset, after checking the node answered its durable epoch {@code expected}. */
    private static long ring(final Raas raas, final Connection connection, final long expected)
    {
        final MemorySegment granted = DurabilityTest.call(raas, connection, MemoryNodeProtocol.PERSIST_RING,
            PersistRingLayout.RING_LENGTH, 0, KvBlockLayout.NO_WRITE);
        assertEquals(MemoryNodeProtocol.OK, granted.get(INT, MemoryNodeProtocol.STATUS_OFFSET));
        assertEquals(expected, granted.get(LONG, MemoryNodeProtocol.RING_EPOCH_OFFSET), "the ring starts there");
        return granted.get(LONG, MemoryNodeProtocol.CHUNK_OFFSET_OFFSET);
    }

    /** A client's mark, as one WRITE of the ring's header leaves it whole. */
    private static void mark(final MemorySegment heap, final long ring, final long position, final long epoch)
    {
        heap.set(LONG, ring + PersistRingLayout.MARK_POSITION_OFFSET, position);
        heap.set(LONG, ring + PersistRingLayout.MARK_EPOCH_OFFSET, epoch);
        heap.set(LONG, ring + PersistRingLayout.MARK_CHECK_OFFSET, PersistRingLayout.markCheck(position, epoch));
    }

    private static int sync(final Raas raas, final Connection connection)
    {
        return DurabilityTest.call(raas, connection, MemoryNodeProtocol.SYNC, 0, -1, KvBlockLayout.NO_WRITE)
            .get(INT, MemoryNodeProtocol.STATUS_OFFSET);
    }

    private static byte[] key(final int i)
    {
        return ("epoch-" + i).getBytes(StandardCharsets.UTF_8);
    }
}

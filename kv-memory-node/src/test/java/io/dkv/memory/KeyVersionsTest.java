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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node keeps the versions its writers' notices name (kv-memory-node/README.md, "Async across nodes"): each with its
 * epoch and the write it replaced, read from the block the notice named even when a newer write replaced it before
 * the node took the notice; of a chain one batch holds whole within one epoch only the last, naming what the first
 * named, in whatever order the notices came; and once the cluster's durable epoch D passed a newer one, only the
 * newest at or below D, with the D it dropped by kept beside them.
 */
class KeyVersionsTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;
    private static final long START = 1_767_225_600_000L;
    private static final int EPOCH_MS = 50;
    private static final long MASK = PersistRingLayout.PREVIOUS_MASK;

    private final StaticDirectory directory = new StaticDirectory();
    private final CachedEpochClock clientClock = new CachedEpochClock();

    KeyVersionsTest()
    {
        clientClock.update(START);
    }

    /** One version as the key store keeps it. */
    private record Version(String key, long epoch, long writeId, long previous, String value)
    {
    }

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private static MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(16).dataDir(data)
            .keepVersions(true);
    }

    private KvClientContext client(final Durability durability)
    {
        return new KvClientContext().memoryNodes(NODE).durability(durability).epochMs(EPOCH_MS)
            .epochClock(clientClock).timeoutMs(5_000);
    }

    @Test
    void aVersionReplacedBeforeItsNoticeIsTakenIsKeptAndAnEpochKeepsItsLast(@TempDir final Path data)
        throws Exception
    {
        final long first = START / EPOCH_MS;
        final long[] writeIds = new long[3];
        final ExecutorService loop = Executors.newSingleThreadExecutor();
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas, client(Durability.ASYNC)))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
            loop.submit(() ->
            {
                // as a compute node's loop: every notice held until the flush, so the node takes all three at once,
                // after v2 and v3 replaced v1
                client.deferPersists();
                client.put(bytes("k"), bytes("v1"));
                writeIds[0] = writeIdOf(index, heap, "k");
                clientClock.update(START + EPOCH_MS);
                client.put(bytes("k"), bytes("v2"));
                writeIds[1] = writeIdOf(index, heap, "k");
                client.put(bytes("k"), bytes("v3"));
                writeIds[2] = writeIdOf(index, heap, "k");
                client.flushPersists();
            }).get();
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 3);
        }
        finally
        {
            loop.shutdown();
        }

        assertEquals(List.of(
            new Version("k", first, writeIds[0], 0, "v1"),
            new Version("k", first + 1, writeIds[2], writeIds[0] & MASK, "v3")), versions(data),
            "v1 as it was, though the index held v3 when its notice was taken; v2 stood for by v3, of its epoch");
    }

    @Test
    void aChainTakenOutOfItsWritesOrderIsKeptAsItsLastNamingWhatItsFirstNamed(@TempDir final Path data)
        throws Exception
    {
        final long epoch = START / EPOCH_MS;
        final long[] blocks = new long[3];
        final long[] writeIds = new long[3];
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient unannounced = KvClient.connect(clientRaas, client(Durability.NONE));
            Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
            unannounced.put(bytes("other"), bytes("x"));
            final long other = IndexInspector.committedBlock(index, heap, "other");
            for (int i = 0; i < 3; i++)
            {
                unannounced.put(bytes("k"), bytes("v" + (i + 1)));
                blocks[i] = IndexInspector.committedBlock(index, heap, "k");
                writeIds[i] = KvBlockLayout.writeId(heap, blocks[i]);
            }
            // the notices as three clients' rings might hand them over: the last write's first, the first's between
            final long[][] notices = {
                {blocks[2], writeIds[1]}, {other, 0}, {blocks[0], 0}, {blocks[1], writeIds[0]}};
            final MemorySegment message = clientRaas.allocateBuffer(MemoryNodeProtocol.MAX_REQUEST_LENGTH);
            final ValueLayout.OfInt intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            final ValueLayout.OfLong longLayout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            message.set(intLayout, MemoryNodeProtocol.TYPE_OFFSET, MemoryNodeProtocol.PERSIST_BLOCKS);
            message.set(intLayout, MemoryNodeProtocol.ARGUMENT_OFFSET, notices.length);
            for (int i = 0; i < notices.length; i++)
            {
                final long at = MemoryNodeProtocol.BLOCK_OFFSET + (long)i * MemoryNodeProtocol.NOTICE_LENGTH;
                message.set(longLayout, at, notices[i][0]);
                message.set(longLayout, at + Long.BYTES, notices[i][1]);
            }
            connection.send(message, 0, MemoryNodeProtocol.persistBlocksLength(notices.length), Flags.ADAPTIVE);
            final MemorySegment answer = DurabilityTest.call(clientRaas, connection, MemoryNodeProtocol.SYNC, 0, -1,
                KvBlockLayout.NO_WRITE);
            assertEquals(MemoryNodeProtocol.OK, answer.get(intLayout, MemoryNodeProtocol.STATUS_OFFSET));
        }

        final List<Version> kept = versions(data);
        assertEquals(2, kept.size(), kept::toString);
        assertEquals(new Version("k", epoch, writeIds[2], 0, "v3"), kept.getFirst(), "one row for the chain");
        assertEquals("other", kept.get(1).key());
    }

    @Test
    void versionsTheClusterDurableEpochPassedAreDroppedAndTheNewestAtOrBelowItKept(@TempDir final Path data)
        throws Exception
    {
        final CachedEpochClock nodeClock = new CachedEpochClock();
        nodeClock.update(START);
        final long first = START / EPOCH_MS;
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data).epochClock(nodeClock).epochMs(EPOCH_MS)
                .fsyncIntervalMs(20).versionSweepMs(20).versionSegmentBytes(1));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas, client(Durability.ASYNC)))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            for (int i = 0; i < 4; i++)
            {
                // a version an epoch, each of its own batch
                moveClocks(nodeClock, START + (long)i * EPOCH_MS);
                client.put(bytes("k"), bytes("v" + i));
                client.put(bytes("other"), bytes("v" + i));
                final int written = 2 * (i + 1);
                KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= written);
            }
            assertEquals(0, node.versionsDropped(), "the cluster's durable epoch is 0 until a client writes it");
            // the versions on disk at first + 3 and the marks past it: the client's D passes them all
            moveClocks(nodeClock, START + 10L * EPOCH_MS);
            KvCluster.awaitTrue(() -> client.clusterDurableEpoch() >= first + 3);
            assertEquals(client.clusterDurableEpoch(),
                index.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
                IndexLayout.CLUSTER_DURABLE_EPOCH_OFFSET), "in the header");
            KvCluster.awaitTrue(() -> node.versionsDropped() == 6);
        }

        final List<Version> kept = versions(data);
        assertEquals(2, kept.size(), kept::toString);
        assertEquals(new Version("k", first + 3, kept.getFirst().writeId(), kept.getFirst().previous(), "v3"),
            kept.getFirst(), "the newest at or below D stands for the three before it");
        assertEquals("v3", kept.get(1).value());
        try (KeyStore store = KeyStore.open(data, NODE, null))
        {
            assertTrue(store.clusterDurableEpoch() >= first + 3, "the D it dropped by, kept for a recovery's cut");
        }
    }

    /**
     * A delete under async where versions are kept is a tombstone of the delete's own epoch, kept as a version naming
     * what it deleted; its slot stays until the cluster's durable epoch D reaches that epoch (a write after it then
     * names it), while the node's scan empties an expired key's slot beside it.
     */
    @Test
    void aDeleteUnderAsyncIsATombstoneOfItsEpochWhoseSlotStaysUntilTheClusterDurableEpochReachesIt(
        @TempDir final Path data) throws Exception
    {
        final CachedEpochClock nodeClock = new CachedEpochClock();
        nodeClock.update(START);
        final long first = START / EPOCH_MS;
        final long[] deleted = new long[1];
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data).epochClock(nodeClock).epochMs(EPOCH_MS)
                .fsyncIntervalMs(20).expiryScanMs(10));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas, client(Durability.ASYNC)))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            final MemorySegment heap = nodeRaas.localMemory(node.heapRegion());
            client.put(bytes("k"), bytes("v"));
            deleted[0] = writeIdOf(index, heap, "k");
            client.put(bytes("brief"), bytes("x"), START + 6L * EPOCH_MS);
            moveClocks(nodeClock, START + 5L * EPOCH_MS);
            assertTrue(client.delete(bytes("k")));
            final long tombstone = IndexInspector.committedBlock(index, heap, "k");
            assertEquals(KvBlockLayout.TOMBSTONE, KvBlockLayout.expireAt(heap, tombstone), "a tombstone in its slot");
            assertEquals(first + 5, KvBlockLayout.epoch(heap, tombstone), "of the delete's epoch");

            // a scan that empties the expired key passes the tombstone, whose epoch D has not reached
            moveClocks(nodeClock, START + 7L * EPOCH_MS);
            KvCluster.awaitTrue(() -> node.keysExpired() >= 1);
            assertEquals(1, node.keysExpired(), "the expired key's slot only");
            assertEquals(tombstone, IndexInspector.committedBlock(index, heap, "k"));

            moveClocks(nodeClock, START + 20L * EPOCH_MS);
            KvCluster.awaitTrue(() -> client.clusterDurableEpoch() >= first + 5);
            KvCluster.awaitTrue(() -> node.keysExpired() == 2);
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 4);
        }

        final List<Version> kept = versions(data).stream().filter(version -> version.epoch() == first + 5).toList();
        assertEquals(List.of(new Version("k", first + 5, kept.getFirst().writeId(), deleted[0] & MASK, "")), kept,
            "the delete, naming the version it deleted");
    }

    @Test
    void aKeyComesBackFromDiskOfTheEpochItWasWrittenAt(@TempDir final Path data) throws Exception
    {
        final long written = START / EPOCH_MS + 123;
        clientClock.update(START + 123L * EPOCH_MS);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = KvClient.connect(clientRaas, client(Durability.SYNC)))
        {
            client.put(bytes("k"), bytes("v"));
            assertEquals(written, KvBlockLayout.epoch(nodeRaas.localMemory(node.heapRegion()),
                IndexInspector.committedBlock(nodeRaas.localMemory(node.indexRegion()),
                    nodeRaas.localMemory(node.heapRegion()), "k")));
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode back = MemoryNode.start(nodeRaas, node(data)))
        {
            assertEquals(1, back.keysRecovered());
            final MemorySegment heap = nodeRaas.localMemory(back.heapRegion());
            assertEquals(written, KvBlockLayout.epoch(heap,
                IndexInspector.committedBlock(nodeRaas.localMemory(back.indexRegion()), heap, "k")),
                "a client that reads it writes after its epoch, as before the restart");
        }
    }

    private void moveClocks(final CachedEpochClock nodeClock, final long millis)
    {
        nodeClock.update(millis);
        clientClock.update(millis);
    }

    private static long writeIdOf(final MemorySegment index, final MemorySegment heap, final String key)
    {
        return KvBlockLayout.writeId(heap, IndexInspector.committedBlock(index, heap, key));
    }

    private static List<Version> versions(final Path data)
    {
        final List<Version> kept = new ArrayList<>();
        try (KeyStore store = KeyStore.open(data, NODE, null))
        {
            store.forEachVersion((key, epoch, writeId, previous, expireAt, value) -> kept.add(
                new Version(text(key), epoch, writeId, previous, text(value))));
        }
        return kept;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.format.IndexLayout;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node back from a disk with versions waits for the pool's cut (kv-memory-node/README.md, "Coming back"): it
 * publishes what its disk kept, and a rollback to a cut makes every key with versions above it its newest version at
 * or below, or absent, on disk and in the index at once; done again at the same cut it changes nothing, and once the
 * node serves as a member no cut rolls it back.
 */
class KeyRollbackTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;
    private static final long START = 1_767_225_600_000L;
    private static final int EPOCH_MS = 50;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final StaticDirectory directory = new StaticDirectory();
    private final CachedEpochClock clock = new CachedEpochClock();

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(16).dataDir(data)
            .keepVersions(true).awaitPoolCut(true).epochClock(clock).epochMs(EPOCH_MS);
    }

    /** A node whose every version has a segment of its own, dropped within 20 ms of D passing it. */
    private MemoryNodeContext sweepingEachVersion(final Path data)
    {
        return node(data).versionSegmentBytes(1).versionSweepMs(20).fsyncIntervalMs(20);
    }

    private KvClient client(final Raas raas, final Durability durability)
    {
        return KvClient.connect(raas, new KvClientContext().memoryNodes(NODE).durability(durability)
            .epochMs(EPOCH_MS).epochClock(clock).timeoutMs(5_000));
    }

    @Test
    void aRollbackTakesEveryKeyWrittenAboveTheCutBackToItsNewestVersionAtOrBelowIt(@TempDir final Path data)
        throws Exception
    {
        final long before = START / EPOCH_MS;
        final long after = before + 10;
        final long cut = before + 5;
        clock.update(START);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = client(clientRaas, Durability.ASYNC))
        {
            assertFalse(node.awaitsCut(), "a node that starts on an empty directory has nothing to roll back");
            client.put(bytes("a"), bytes("a0"));
            client.put(bytes("b"), bytes("b0"));
            client.put(bytes("d"), bytes("d0"));
            client.put(bytes("e"), bytes("e0"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 4);
            clock.update(START + 2L * EPOCH_MS);
            client.delete(bytes("e"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 5);
            clock.update(START + 10L * EPOCH_MS);
            client.put(bytes("a"), bytes("a1"));
            client.put(bytes("c"), bytes("c1"));
            client.delete(bytes("d"));
            // the delete in a batch of its own: a batch that held it with d1 would keep d1 alone, naming d0
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 8);
            client.put(bytes("d"), bytes("d1"));
            client.put(bytes("e"), bytes("e1"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 10);
        }
        keepDurableEpoch(data, after);

        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            final MemorySegment index = nodeRaas.localMemory(node.indexRegion());
            assertTrue(node.awaitsCut());
            assertEquals(after, index.get(LONG, IndexLayout.RESTORED_DURABLE_EPOCH_OFFSET), "what its disk kept");
            assertEquals(0, index.get(LONG, IndexLayout.ROLLED_BACK_TO_OFFSET));

            final RollbackReport report = node.rollBack(cut, Duration.ofSeconds(30));

            assertEquals(2, report.keysRolledBack(), "a, and d deleted after the cut: " + report);
            assertEquals(2, report.keysRemoved(), "c written after the cut, e deleted before it: " + report);
            assertEquals(5, report.versionsDropped(), "a1, c1, d's delete, d1, e1: " + report);
            assertEquals(cut, index.get(LONG, IndexLayout.ROLLED_BACK_TO_OFFSET));
            assertEquals(cut, index.get(LONG, IndexLayout.DURABLE_EPOCH_OFFSET));
            try (Raas clientRaas = raas(CLIENT); KvClient client = client(clientRaas, Durability.NONE))
            {
                assertArrayEquals(bytes("a0"), client.get(bytes("a")), "in memory at once");
                assertArrayEquals(bytes("b0"), client.get(bytes("b")));
                assertNull(client.get(bytes("c")));
                assertArrayEquals(bytes("d0"), client.get(bytes("d")), "its delete after the cut undone");
                assertNull(client.get(bytes("e")), "deleted before the cut: not brought back by its older value");
            }
            assertEquals(0, node.rollBack(cut, Duration.ofSeconds(30)).versionsDropped(), "again: nothing to do");
        }

        try (KeyStore store = KeyStore.open(data, NODE, null))
        {
            final List<String> rows = new ArrayList<>();
            store.forEach((key, expireAt, writeId, epoch, value) -> rows.add(text(key) + "=" + text(value) + "@" +
                (epoch - before)));
            assertEquals(List.of("a=a0@0", "b=b0@0", "d=d0@0"), rows, "on disk too");
            final List<Long> epochs = new ArrayList<>();
            store.forEachVersion((key, epoch, writeId, previous, expireAt, value) -> epochs.add(epoch));
            assertTrue(epochs.stream().allMatch(epoch -> epoch <= cut), "no version above the cut: " + epochs);
            assertEquals(cut, store.durableEpoch(), "a restart chooses the same cut");
        }
        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            assertTrue(node.awaitsCut(), "stopped before it served: still waiting for the cut");
            assertEquals(0, node.rollBack(cut, Duration.ofSeconds(30)).versionsDropped());
            node.endRecovery();
            KvCluster.awaitTrue(() -> !node.awaitsCut());
            assertThrows(IllegalStateException.class, () -> node.rollBack(cut, Duration.ofSeconds(30)),
                "a node that serves as a member is never rolled back");
        }
    }

    /**
     * A write its writer waited for (durability sync, appendfsync always) was acknowledged on disk: a rollback to a
     * cut below it keeps it, and takes back only what async writes did above the cut, after it or before.
     */
    @Test
    void aRollbackKeepsWritesAcknowledgedOnDiskAboveTheCut(@TempDir final Path data) throws Exception
    {
        final long before = START / EPOCH_MS;
        final long cut = before + 5;
        clock.update(START);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, node(data));
            Raas asyncRaas = raas(CLIENT);
            KvClient async = client(asyncRaas, Durability.ASYNC);
            Raas syncRaas = raas(CLIENT + 1);
            KvClient sync = client(syncRaas, Durability.SYNC))
        {
            putFirstVersions(node, async, "x", "y", "z");
            clock.update(START + 10L * EPOCH_MS);
            sync.put(bytes("x"), bytes("x1"));
            async.put(bytes("y"), bytes("y1"));
            sync.put(bytes("z"), bytes("z1"));
            async.put(bytes("z"), bytes("z2"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 7);
        }
        keepDurableEpoch(data, before + 10);

        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            final RollbackReport report = node.rollBack(cut, Duration.ofSeconds(30));

            assertEquals(2, report.versionsDropped(), "y1 and z2: " + report);
            try (Raas clientRaas = raas(CLIENT); KvClient client = client(clientRaas, Durability.NONE))
            {
                assertArrayEquals(bytes("x1"), client.get(bytes("x")), "acknowledged on disk: kept");
                assertArrayEquals(bytes("y0"), client.get(bytes("y")));
                assertArrayEquals(bytes("z1"), client.get(bytes("z")), "the async write after it taken back");
            }
        }
    }

    /**
     * A version whose segment of the log the sweep dropped (the cluster's durable epoch D passed it) is kept for a cut
     * between it and a later write: appended to the log again when the key has a later version there (c), or, when it
     * has none, kept as a row of the key store (a, written again after the segment was dropped; b, never).
     */
    @Test
    void aRollbackGoesBackToAVersionWhoseSegmentTheSweepDropped(@TempDir final Path data) throws Exception
    {
        final long before = START / EPOCH_MS;
        final long cut = before + 4;
        clock.update(START);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, sweepingEachVersion(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = client(clientRaas, Durability.ASYNC))
        {
            putFirstVersions(node, client, "a", "b", "c");
            // the clock stays here: D reaches the epoch before it and no further, below c1 and a1
            clock.update(START + 5L * EPOCH_MS);
            client.put(bytes("c"), bytes("c1"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 4);
            KvCluster.awaitTrue(() -> client.clusterDurableEpoch() >= before);
            KvCluster.awaitTrue(() -> node.versionSegmentsDropped() >= 3);
            client.put(bytes("a"), bytes("a1"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 5);
            assertTrue(client.clusterDurableEpoch() <= cut, "D " + client.clusterDurableEpoch());
        }
        try (KeyStore store = KeyStore.open(data, NODE, null))
        {
            final List<String> logged = new ArrayList<>();
            store.versionLog().forEach((key, epoch, writeId, previous, expireAt, value) ->
                logged.add(text(value) + "@" + (epoch - before)));
            assertEquals(List.of("a1@5", "c0@0", "c1@5"), logged.stream().sorted().toList(),
                "c0 appended again: c1, above D, is no version that stands for it");
            final List<String> rows = new ArrayList<>();
            store.forEachVersionRow((key, epoch, writeId, previous, expireAt, value) ->
                rows.add(text(value) + "@" + (epoch - before)));
            assertEquals(List.of("a0@0", "b0@0"), rows, "nothing later in the log then: kept as rows");
        }
        keepDurableEpoch(data, before + 5);

        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            final RollbackReport report = node.rollBack(cut, Duration.ofSeconds(30));

            assertEquals(2, report.keysRolledBack(), report.toString());
            try (Raas clientRaas = raas(CLIENT); KvClient client = client(clientRaas, Durability.NONE))
            {
                assertArrayEquals(bytes("a0"), client.get(bytes("a")), "kept as a row when its segment was dropped");
                assertArrayEquals(bytes("b0"), client.get(bytes("b")), "its row, untouched");
                assertArrayEquals(bytes("c0"), client.get(bytes("c")), "carried as its segment was dropped");
            }
        }
    }

    /**
     * A delete whose segment the sweep dropped with nothing after it is kept too: an older version of the key, kept as
     * a row by an earlier drop, must not come back when a cut falls between the delete and a later write.
     */
    @Test
    void aDeleteWhoseSegmentTheSweepDroppedKeepsAnOlderKeptVersionFromComingBack(@TempDir final Path data)
        throws Exception
    {
        final long before = START / EPOCH_MS;
        final long cut = before + 5;
        clock.update(START);
        try (Raas nodeRaas = raas(NODE);
            MemoryNode node = MemoryNode.start(nodeRaas, sweepingEachVersion(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = client(clientRaas, Durability.ASYNC))
        {
            putFirstVersions(node, client, "d");
            clock.update(START + 3L * EPOCH_MS);
            KvCluster.awaitTrue(() -> node.versionSegmentsDropped() >= 1);
            assertTrue(client.delete(bytes("d")));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 2);
            // the clock stays here: D reaches the epoch before it and no further, below d's next write
            clock.update(START + 6L * EPOCH_MS);
            KvCluster.awaitTrue(() -> node.versionSegmentsDropped() >= 2);
            client.put(bytes("d"), bytes("d2"));
            KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= 3);
            assertTrue(client.clusterDurableEpoch() <= cut, "D " + client.clusterDurableEpoch());
        }
        keepDurableEpoch(data, before + 6);

        try (Raas nodeRaas = raas(NODE); MemoryNode node = MemoryNode.start(nodeRaas, node(data)))
        {
            node.rollBack(cut, Duration.ofSeconds(30));
            try (Raas clientRaas = raas(CLIENT); KvClient client = client(clientRaas, Durability.NONE))
            {
                assertNull(client.get(bytes("d")), "deleted at the cut: d0 does not come back");
            }
        }
    }

    /** Each key set to its name and "0", and on the node's disk. */
    private static void putFirstVersions(final MemoryNode node, final KvClient client, final String... keys)
        throws InterruptedException
    {
        for (final String key : keys)
        {
            client.put(bytes(key), bytes(key + "0"));
        }
        KvCluster.awaitTrue(() -> node.persistStats().keysPersisted() >= keys.length);
    }

    /** The durable epoch as the node keeps it, written as a node whose clients' marks had passed it would. */
    private static void keepDurableEpoch(final Path data, final long epoch)
    {
        try (KeyStore store = KeyStore.open(data, NODE, null))
        {
            store.writeDurableEpoch(epoch);
            store.syncWal();
        }
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

package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node with a data directory comes back from a restart with every key a client wrote
 * under durability sync (or async, once written), holding its last value; a client keeps working
 * across the restart. A value a reader was given is on the node's disk, even when its writer never
 * told the node (it died between the CAS that published it and its PERSIST).
 */
class DurabilityTest
{
    private static final long NODE = 7;
    private static final long CLIENT = 70;

    private final StaticDirectory directory = new StaticDirectory();

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Raas raas(final long nodeId)
    {
        return RaasDriver.start(KvCluster.context("shm", nodeId), directory);
    }

    private static MemoryNodeContext node(final Path data)
    {
        return new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8).dataDir(data);
    }

    private static KvClient connect(final Raas clientRaas, final Durability durability)
    {
        return KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE).durability(durability));
    }

    /** The memory node with its own driver, stopped and started again over the same data directory. */
    private final class RestartableNode implements AutoCloseable
    {
        private final MemoryNodeContext context;
        private Raas raas;
        private MemoryNode node;

        RestartableNode(final MemoryNodeContext context)
        {
            this.context = context;
            start();
        }

        MemoryNode node()
        {
            return node;
        }

        MemorySegment index()
        {
            return raas.localMemory(node.indexRegion());
        }

        MemorySegment heap()
        {
            return raas.localMemory(node.heapRegion());
        }

        /** @return the node as it came back: what it recovered from its data directory. */
        MemoryNode restart()
        {
            close();
            start();
            return node;
        }

        /** Start the node again after {@link MemoryNode#close} on the one given by {@link #node}. */
        void startAgain()
        {
            raas.close();
            start();
        }

        private void start()
        {
            raas = raas(NODE);
            node = MemoryNode.start(raas, context);
        }

        public void close()
        {
            node.close();
            raas.close();
        }
    }

    @Test
    void keysWrittenUnderSyncComeBackAfterARestartWithTheirLastValues(@TempDir final Path data)
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            for (int i = 0; i < 200; i++)
            {
                client.put(bytes("k" + i), bytes("first " + i));
            }
            for (int i = 0; i < 200; i += 3)
            {
                client.put(bytes("k" + i), bytes("second " + i));
            }
            for (int i = 1; i < 200; i += 5)
            {
                assertTrue(client.delete(bytes("k" + i)));
            }
            assertTrue(client.compareAndSet(bytes("k0"), bytes("second 0"), bytes("third 0")));
            assertTrue(memory.node().persistStats().keysPersisted() >= 200 + 67 + 40 + 1);

            assertEquals(200 - 40, memory.restart().keysRecovered());
            // a walk of the index (DBSIZE, SCAN) reads the restarted node's view again and goes on: before, it failed
            // once per thread with the driver's refusal of a region of the node's old incarnation
            assertEquals(200 - 40, client.countKeys());

            // the client finds the node's new regions by itself, after at most a failed operation per thread
            assertArrayEquals(bytes("third 0"), KvCluster.afterRestart(() -> client.get(bytes("k0"))));
            for (int i = 1; i < 200; i++)
            {
                final byte[] value = client.get(bytes("k" + i));
                if (i % 5 == 1)
                {
                    assertNull(value, "k" + i + " was deleted");
                }
                else
                {
                    assertArrayEquals(bytes((i % 3 == 0 ? "second " : "first ") + i), value, "k" + i);
                }
            }
            client.put(bytes("after"), bytes("restart"));
            assertArrayEquals(bytes("restart"), client.get(bytes("after")));
        }
    }

    @Test
    void keysWrittenUnderAsyncAreOnDiskSoonAfter(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.ASYNC))
        {
            final MemoryNode memoryNode = memory.node();
            for (int i = 0; i < 100; i++)
            {
                client.put(bytes("a" + i), bytes("v" + i));
            }
            KvCluster.awaitTrue(() -> memoryNode.persistStats().keysPersisted() >= 100);
            assertEquals(100, memoryNode.persistStats().keysPersisted());
            assertTrue(memoryNode.persistStats().maxLagNanos() > 0);
            assertEquals(100, memory.restart().keysRecovered());
        }
    }

    /**
     * appendfsync everysec: an async writer's keys are written without an fsync, and the node fsyncs its log once the
     * oldest of them waited the interval. Without that fsync they stayed in the operating system's buffers for as
     * long as it kept them, which a host's crash loses.
     */
    @Test
    void keysWrittenUnderAsyncAreFsyncedWithinTheInterval(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data).fsyncIntervalMs(50));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.ASYNC))
        {
            final PersistStats stats = memory.node().persistStats();
            client.put(bytes("everysec"), bytes("v"));
            KvCluster.awaitTrue(() -> stats.keysPersisted() >= 1);
            final long fsyncs = stats.fsyncs();
            KvCluster.awaitTrue(() -> stats.fsyncs() > fsyncs && stats.unsyncedSinceNanos() == 0);
            assertTrue(stats.lastFsyncOk());
            assertTrue(stats.lastFsyncEpochMs() > 0);
            // (an idle node also writes its durable epoch once an interval, fsynced an interval later, the same way)
            assertTrue(stats.maxUnsyncedNanos() >= 50_000_000L, "not before the interval: " + stats.maxUnsyncedNanos());
        }
    }

    /**
     * Each key comes back from the disk as the write it was, with the write id every replica's copy of it carries:
     * a refill then finds copies alike in place, and when every copy went down the one of the replica that served
     * last is comparable with the others. Before, each key put back was given a write id of its own.
     */
    @Test
    void aRestartedNodeTakesEachKeyBackAsTheWriteItWas(@TempDir final Path data)
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            client.put(bytes("w"), bytes("value"));
            final long before = KvBlockLayout.writeId(memory.heap(),
                IndexInspector.committedBlock(memory.index(), memory.heap(), "w"));
            memory.restart();
            final long after = KvBlockLayout.writeId(memory.heap(),
                IndexInspector.committedBlock(memory.index(), memory.heap(), "w"));
            assertTrue(before != KvBlockLayout.NO_WRITE);
            assertEquals(before, after);
            assertArrayEquals(bytes("value"), KvCluster.afterRestart(() -> client.get(bytes("w"))));
        }
    }

    /** A clean stop fsyncs what was written without one, whatever the interval: nothing is left to lose. */
    @Test
    void aCleanStopWritesWhatWasSentAndFsyncsIt(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data).fsyncIntervalMs(3_600_000));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.ASYNC))
        {
            for (int i = 0; i < 50; i++)
            {
                client.put(bytes("c" + i), bytes("v" + i));
            }
            final MemoryNode stopping = memory.node();
            KvCluster.awaitTrue(() -> stopping.persistStats().keysPersisted() >= 50);
            assertEquals(0, stopping.persistStats().fsyncs(), "written, an hour before the interval asks an fsync");
            assertTrue(stopping.persistStats().unsyncedSinceNanos() != 0);
            stopping.close();
            assertEquals(1, stopping.persistStats().fsyncs(), "fsynced at the stop");
            assertEquals(0, stopping.persistStats().unsyncedSinceNanos());
            memory.startAgain();
            assertEquals(50, memory.node().keysRecovered());
        }
    }

    @Test
    void aRestartedNodeSplitsItsIndexAsItLoadsMoreKeysThanOneSubtableHolds(@TempDir final Path data)
    {
        final MemoryNodeContext small =
            new MemoryNodeContext().indexGroups(1).maxGlobalDepth(8).chunkBytes(2 << 20).heapChunks(8)
            .dataDir(data);
        try (RestartableNode memory = new RestartableNode(small);
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            for (int i = 0; i < 300; i++)
            {
                client.put(bytes("s" + i), bytes("v" + i));
            }
            assertEquals(300, memory.restart().keysRecovered());
            assertArrayEquals(bytes("v0"), KvCluster.afterRestart(() -> client.get(bytes("s0"))));
            for (int i = 1; i < 300; i++)
            {
                assertArrayEquals(bytes("v" + i), client.get(bytes("s" + i)), "s" + i);
            }
        }
    }

    @Test
    void durabilityIsRefusedByANodeThatKeepsNothingOnDisk()
    {
        try (Raas memoryRaas = raas(NODE);
            MemoryNode ignored = MemoryNode.start(memoryRaas, node(null));
            Raas clientRaas = raas(CLIENT))
        {
            final KvException refused =
                assertThrows(KvException.class, () -> connect(clientRaas, Durability.SYNC));
            assertTrue(refused.getMessage().contains("memory node 7 keeps nothing on disk"), refused.getMessage());
            connect(clientRaas, Durability.NONE).close();
        }
    }
    /** How a reader meets a key's value: each must not answer from a block its node may not have on disk. */
    enum Reader
    {
        GET, GET_ASYNC, MULTI_GET, REFUSED_COMPARE_AND_SET
    }

    @ParameterizedTest
    @EnumSource(Reader.class)
    void aValueMetBeforeItsNodeHasItOnDiskIsOnDiskBeforeTheReaderAnswers(final Reader reader,
        @TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            Raas writerRaas = raas(CLIENT + 1);
            KvClient client = connect(clientRaas, Durability.SYNC);
            KvClient unannounced = connect(writerRaas, Durability.NONE))
        {
            client.put(bytes("k"), bytes("on disk"));
            final long first = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            assertFalse(KvBlockLayout.isPending(memory.heap(), first), "a synchronous write's block ends settled");

            // a writer that waits for the disk and dies between its CAS and its PERSIST leaves exactly this: a
            // published block, pending, of which the node knows nothing (this one writes without telling the node,
            // and its block is made pending as that writer's would have been)
            unannounced.put(bytes("k"), bytes("published, not on disk"));
            final long published = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            memory.heap().set(ValueLayout.JAVA_BYTE, published + KvBlockLayout.STATE_OFFSET, KvBlockLayout.PENDING);
            final long persistedBefore = memory.node().persistStats().keysPersisted();

            switch (reader)
            {
                case GET -> assertArrayEquals(bytes("published, not on disk"), client.get(bytes("k")));
                case GET_ASYNC ->
                    assertArrayEquals(bytes("published, not on disk"), client.getAsync(bytes("k")).get());
                case MULTI_GET ->
                    assertArrayEquals(bytes("published, not on disk"), client.multiGet(List.of(bytes("k"))).get(0));
                case REFUSED_COMPARE_AND_SET ->
                    assertFalse(client.compareAndSet(bytes("k"), bytes("on disk"), bytes("never written")));
            }
            assertTrue(memory.node().persistStats().keysPersisted() > persistedBefore, "the reader had it written");
            assertFalse(KvBlockLayout.isPending(memory.heap(), published), "and the node settled the block");

            memory.restart();
            assertArrayEquals(bytes("published, not on disk"), KvCluster.afterRestart(() -> client.get(bytes("k"))),
                "the value the reader was given survived the node's restart");
        }
    }

    /** A delete's two forms: under durability sync the asynchronous one runs the synchronous one on a client thread. */
    enum Deleter
    {
        DELETE, DELETE_ASYNC
    }

    private static boolean delete(final KvClient client, final Deleter deleter, final String key) throws Exception
    {
        return deleter == Deleter.DELETE ? client.delete(bytes(key)) : client.deleteAsync(bytes(key)).get();
    }

    /**
     * A delete under durability sync, its CAS landed and the node's disk not told yet (its request server held, as a
     * node about to crash): a reader of the key must not be answered the miss until the delete is on disk, since the
     * node crashing now comes back with the key from its disk. Before tombstones a delete emptied the slot and the
     * reader answered the miss at once, which the restart then undid.
     */
    @Test
    void aMissReadBeforeItsDeleteIsOnDiskIsNotUndoneByACrash(@TempDir final Path data) throws Exception
    {
        final HeldIdle idle = new HeldIdle();
        final ExecutorService threads = Executors.newFixedThreadPool(1);
        try (RestartableNode memory = new RestartableNode(node(data).idleStrategyInstance(idle)
            .drainOnClose(false));
            Raas deleterRaas = raas(CLIENT);
            Raas readerRaas = raas(CLIENT + 1);
            KvClient deleting = connect(deleterRaas, Durability.SYNC);
            KvClient reading = KvClient.connect(readerRaas,
                new KvClientContext().memoryNodes(NODE).durability(Durability.SYNC).timeoutMs(1_000)))
        {
            // the put on the deleter's thread, which so has its heap chunk (a chunk is asked of the node's CPU)
            threads.submit(() -> deleting.put(bytes("k"), bytes("on disk"))).get();
            final long onDisk = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");

            idle.holdAndAwait();
            // on the thread that holds a heap chunk: a tombstone is written there, with no chunk asked of the node
            final Future<Boolean> deleted = threads.submit(() -> deleting.delete(bytes("k")));
            // the delete's CAS landed: the slot no longer names the value's block
            KvCluster.awaitTrue(() -> IndexInspector.committedBlock(memory.index(), memory.heap(), "k") != onDisk);
            Object read;
            try
            {
                read = reading.get(bytes("k"));
            }
            catch (final KvException ex)
            {
                // the node, held, cannot put the delete on disk within the reader's timeout: no answer is right
                read = ex;
            }

            // the node crashes with the delete's PERSIST unread: nothing of it reached the disk
            memory.restart();
            final byte[] after = KvCluster.afterRestart(() -> reading.get(bytes("k")));
            assertArrayEquals(bytes("on disk"), after, "the delete never reached the node's disk");
            assertTrue(read != null, "the reader was answered a miss that the node's crash then undid");
            assertThrows(Exception.class, deleted::get, "the deleter was not told its delete is on disk");
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(Deleter.class)
    void aDeleteUnderSyncLeavesNoTombstoneOnDiskAndTheSweepEmptiesItsSlot(final Deleter deleter,
        @TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data).expiryScanMs(10));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            client.put(bytes("k"), bytes("v"));
            final long value = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            assertTrue(delete(client, deleter, "k"));
            // a slot that named the value now names a tombstone, settled once the delete was on disk
            final long tombstone = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            if (tombstone >= 0)
            {
                assertTrue(tombstone != value, "a tombstone in place of the value");
                assertEquals(KvBlockLayout.TOMBSTONE, KvBlockLayout.expireAt(memory.heap(), tombstone));
                assertFalse(KvBlockLayout.isPending(memory.heap(), tombstone), "settled by the delete's own PERSIST");
            }
            assertNull(client.get(bytes("k")));
            // the tombstone's slot is emptied by the node's scan once settled
            KvCluster.awaitTrue(() -> IndexInspector.committedBlock(memory.index(), memory.heap(), "k") < 0);
            assertFalse(delete(client, deleter, "k"), "a key deleted is absent");
            assertEquals(0, memory.restart().keysRecovered(), "the delete on disk, no tombstone loaded");
            assertNull(KvCluster.afterRestart(() -> client.get(bytes("k"))));
        }
    }

    @Test
    void aNodeAskedToSettleABlockThatHoldsAnotherWriteSaysItIsGone(@TempDir final Path data)
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.SYNC))
        {
            client.put(bytes("k"), bytes("v"));
            final long block = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            final long writeId = KvBlockLayout.writeId(memory.heap(), block);
            try (Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
            {
                assertEquals(MemoryNodeProtocol.GONE, persist(clientRaas, connection, block, writeId + 1));
                assertEquals(MemoryNodeProtocol.OK, persist(clientRaas, connection, block, writeId));
            }
        }
    }

    /**
     * A node told that an older write changed (its writer's PERSIST, late) writes what its index holds now, but leaves
     * the newer write's block pending: that block's own writer tells this node last, once every other replica has it
     * on disk; settled early, a reader would answer a value the other replicas' disks lack (RecoveryModelTest's
     * SETTLES_NEWER).
     */
    @Test
    void aPersistNamingAnOlderBlockWritesTheNewerValueButLeavesItPending(@TempDir final Path data)
    {
        try (RestartableNode memory = new RestartableNode(node(data));
            Raas clientRaas = raas(CLIENT);
            Raas writerRaas = raas(CLIENT + 1);
            KvClient client = connect(clientRaas, Durability.SYNC);
            KvClient unannounced = connect(writerRaas, Durability.NONE))
        {
            client.put(bytes("k"), bytes("older"));
            final long older = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            unannounced.put(bytes("k"), bytes("newer, its PERSIST not sent yet"));
            final long newer = IndexInspector.committedBlock(memory.index(), memory.heap(), "k");
            memory.heap().set(ValueLayout.JAVA_BYTE, newer + KvBlockLayout.STATE_OFFSET, KvBlockLayout.PENDING);
            final long persistedBefore = memory.node().persistStats().keysPersisted();
            try (Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
            {
                assertEquals(MemoryNodeProtocol.OK, persist(clientRaas, connection, older, KvBlockLayout.NO_WRITE));
                assertEquals(persistedBefore + 1, memory.node().persistStats().keysPersisted());
                assertTrue(KvBlockLayout.isPending(memory.heap(), newer), "the newer write's block stays pending");

                assertEquals(MemoryNodeProtocol.OK, persist(clientRaas, connection, newer, KvBlockLayout.NO_WRITE));
                assertFalse(KvBlockLayout.isPending(memory.heap(), newer), "settled by a PERSIST naming it");
            }
        }
    }

    /**
     * SYNC answers once every key the node wrote before it is fsynced, whatever the fsync interval: a refill's copies,
     * told under durability async, are on its joiner's disk before the joiner is read.
     */
    @Test
    void aSyncRequestIsAnsweredOnceEveryKeyWrittenBeforeItIsFsynced(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data).fsyncIntervalMs(3_600_000));
            Raas clientRaas = raas(CLIENT);
            KvClient client = connect(clientRaas, Durability.ASYNC))
        {
            client.put(bytes("k"), bytes("v"));
            final PersistStats stats = memory.node().persistStats();
            KvCluster.awaitTrue(() -> stats.keysPersisted() == 1);
            final long fsyncsBefore = stats.fsyncs();
            assertTrue(stats.unsyncedSinceNanos() != 0, "written without an fsync, the interval an hour");
            try (Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
            {
                assertEquals(MemoryNodeProtocol.OK, request(clientRaas, connection, MemoryNodeProtocol.SYNC, 0,
                    -1, KvBlockLayout.NO_WRITE));
            }
            assertEquals(fsyncsBefore + 1, stats.fsyncs());
            assertEquals(0, stats.unsyncedSinceNanos(), "nothing written is left unsynced");
        }
    }

    /**
     * One PERSIST_BLOCKS message tells the node of many keys (a client's writes under durability async since its last
     * message): each is written to disk, in one write of the key store, and a malformed count is refused.
     */
    @Test
    void aPersistBlocksMessageWritesEveryKeyItNamesInOneBatch(@TempDir final Path data) throws Exception
    {
        try (RestartableNode memory = new RestartableNode(node(data).batchDelayUs(1_000_000));
            Raas clientRaas = raas(CLIENT);
            KvClient unannounced = connect(clientRaas, Durability.NONE))
        {
            unannounced.put(bytes("a"), bytes("1"));
            unannounced.put(bytes("b"), bytes("2"));
            final PersistStats stats = memory.node().persistStats();
            final long batches = stats.batches();
            final MemorySegment message = clientRaas.allocateBuffer(MemoryNodeProtocol.MAX_REQUEST_LENGTH);
            final ValueLayout.OfInt intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            final ValueLayout.OfLong longLayout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
            message.set(intLayout, MemoryNodeProtocol.TYPE_OFFSET, MemoryNodeProtocol.PERSIST_BLOCKS);
            try (Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
            {
                // one block, as short as a message of one may be, then two
                message.set(intLayout, MemoryNodeProtocol.ARGUMENT_OFFSET, 1);
                message.set(longLayout, MemoryNodeProtocol.BLOCK_OFFSET,
                    IndexInspector.committedBlock(memory.index(), memory.heap(), "a"));
                connection.send(message, 0, MemoryNodeProtocol.persistBlocksLength(1), Flags.ADAPTIVE);
                message.set(intLayout, MemoryNodeProtocol.ARGUMENT_OFFSET, 2);
                message.set(longLayout, MemoryNodeProtocol.BLOCK_OFFSET + MemoryNodeProtocol.NOTICE_LENGTH,
                    IndexInspector.committedBlock(memory.index(), memory.heap(), "b"));
                connection.send(message, 0, MemoryNodeProtocol.persistBlocksLength(2), Flags.ADAPTIVE);
                // gathered for up to the batch delay (a second here): a SYNC writes them at once, and fsyncs
                assertEquals(MemoryNodeProtocol.OK, request(clientRaas, connection, MemoryNodeProtocol.SYNC, 0, -1,
                    KvBlockLayout.NO_WRITE));
                assertEquals(3, stats.keysPersisted(), "a twice, b once");
                assertEquals(batches + 1, stats.batches(), "all in one write of the key store");
                assertEquals(0, memory.node().counters().get(MemoryNodeCounter.REQUESTS_MALFORMED).get());

                message.set(intLayout, MemoryNodeProtocol.ARGUMENT_OFFSET, MemoryNodeProtocol.MAX_BLOCKS + 1);
                connection.send(message, 0, MemoryNodeProtocol.persistBlocksLength(2), Flags.ADAPTIVE);
                KvCluster.awaitTrue(() ->
                    memory.node().counters().get(MemoryNodeCounter.REQUESTS_MALFORMED).get() == 1);
            }
            final MemoryNode back = memory.restart();
            assertEquals(2, back.keysRecovered(), "both on disk");
        }
    }

    @Test
    void aSyncRequestToANodeThatKeepsNothingOnDiskSaysSo()
    {
        try (Raas nodeRaas = raas(NODE);
            MemoryNode ignored = MemoryNode.start(nodeRaas, node(null));
            Raas clientRaas = raas(CLIENT);
            Connection connection = clientRaas.connect(NODE, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null))
        {
            assertEquals(MemoryNodeProtocol.NOT_PERSISTENT, request(clientRaas, connection, MemoryNodeProtocol.SYNC,
                0, -1, KvBlockLayout.NO_WRITE));
        }
    }

    private static int persist(final Raas raas, final Connection connection, final long block, final long writeId)
    {
        return request(raas, connection, MemoryNodeProtocol.PERSIST, MemoryNodeProtocol.ANSWER_WHEN_DURABLE, block,
            writeId);
    }

    private static int request(final Raas raas, final Connection connection, final int type, final int argument,
        final long block, final long writeId)
    {
        return call(raas, connection, type, argument, block, writeId)
            .get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), MemoryNodeProtocol.STATUS_OFFSET);
    }

    /** One request over a raw connection to the node (PersistRingTest makes some too). @return its answer. */
    static MemorySegment call(final Raas raas, final Connection connection, final int type, final int argument,
        final long block, final long writeId)
    {
        final ValueLayout.OfInt intLayout = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        final ValueLayout.OfLong longLayout = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
        final MemorySegment buffer = raas.allocateBuffer(MemoryNodeProtocol.REQUEST_LENGTH);
        buffer.set(intLayout, MemoryNodeProtocol.TYPE_OFFSET, type);
        buffer.set(intLayout, MemoryNodeProtocol.ARGUMENT_OFFSET, argument);
        buffer.set(longLayout, MemoryNodeProtocol.CORRELATION_OFFSET, 1);
        buffer.set(longLayout, MemoryNodeProtocol.BLOCK_OFFSET, block);
        buffer.set(longLayout, MemoryNodeProtocol.WRITE_ID_OFFSET, writeId);
        connection.send(buffer, 0, MemoryNodeProtocol.REQUEST_LENGTH, Flags.ADAPTIVE);
        assertEquals(MemoryNodeProtocol.REPLY_LENGTH,
            connection.recv(buffer, 0, MemoryNodeProtocol.REPLY_LENGTH, Duration.ofSeconds(30)));
        return buffer;
    }
}

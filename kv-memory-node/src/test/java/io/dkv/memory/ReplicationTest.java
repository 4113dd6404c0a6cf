package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With two copies of each key, every key lives on its first two memory nodes in rendezvous order, the
 * copies agree at rest, and a node declared down takes no key with it: reads, writes, compare-and-set
 * and versions go on over the other copy.
 */
class ReplicationTest
{
    private static final long[] IDS = {1, 2, 3};
    private static final int KEYS = 90;
    private static final long CLIENT = 100;

    private final StaticDirectory directory = new StaticDirectory();
    private final List<Raas> raases = new ArrayList<>();
    private final List<MemoryNode> nodes = new ArrayList<>();
    private Raas clientRaas;
    private KvClient client;

    void start(final String provider)
    {
        directory.membership(membership(1, Membership.LIVE));
        for (final long id : IDS)
        {
            final Raas raas = RaasDriver.start(KvCluster.context(provider, id).role(NodeRecord.ROLE_MEMORY), directory);
            raases.add(raas);
            nodes.add(
                MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20).heapChunks(16)));
        }
        clientRaas = RaasDriver.start(KvCluster.context(provider, CLIENT), directory);
        client = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS).timeoutMs(2_000)
            .unavailableRetryMs(0));
    }

    @AfterEach
    void close()
    {
        if (client != null)
        {
            client.close();
        }
        nodes.forEach(MemoryNode::close);
        if (clientRaas != null)
        {
            clientRaas.close();
        }
        raases.forEach(Raas::close);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void everyKeyHasTwoAgreeingCopies(final String provider)
    {
        start(provider);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 0));
            if (k % 3 == 0)
            {
                client.put(key(k), value(k, 1));
            }
        }
        final Map<String, List<String>> copies = copies();
        for (int k = 0; k < KEYS; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            assertEquals(2, replicas.length);
            for (final long replica : replicas)
            {
                assertTrue(nodeHolds(replica, k), "key " + k + " is on its replica " + replica);
            }
            final List<String> held = copies.get("key-" + k);
            assertNotNull(held, "key " + k + " is on no node");
            assertEquals(2, held.size(), "key " + k + "'s copies: " + held);
            assertEquals(held.get(0), held.get(1), "key " + k + "'s copies agree, write id and all");
            assertTrue(held.get(0).startsWith(new String(value(k, k % 3 == 0 ? 1 : 0), StandardCharsets.UTF_8)));
        }
        for (int k = 0; k < KEYS; k += 2)
        {
            assertTrue(client.delete(key(k)));
        }
        final Map<String, List<String>> after = copies();
        for (int k = 0; k < KEYS; k++)
        {
            assertEquals(k % 2 == 0 ? null : 2, after.get("key-" + k) == null ? null : after.get("key-" + k).size(),
                "key " + k + " after deleting the even keys");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeDeclaredDownTakesNoKeyWithIt(final String provider)
    {
        start(provider);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 0));
        }
        final Versioned version = client.getVersioned(key(1));
        // gone, as kill -9 leaves it: nothing answers for it any more
        nodes.remove(1).close();
        raases.remove(1).close();
        directory.membership(membership(2, Membership.DOWN));
        for (int k = 0; k < KEYS; k++)
        {
            assertArrayEquals(value(k, 0), client.get(key(k)), "key " + k + " read after node 2 went down");
        }
        assertEquals(KEYS, client.multiGet(keys()).stream().filter(v -> v != null).count());
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 1));
            assertArrayEquals(value(k, 1), client.get(key(k)), "key " + k + " written without node 2");
        }
        assertTrue(client.compareAndSet(key(0), value(0, 1), value(0, 2)));
        assertFalse(client.compareAndSet(key(0), value(0, 1), value(0, 3)), "the value is no longer that");
        assertFalse(client.compareAndSetVersion(key(1), version, value(1, 9)), "a version written over since");
        final Versioned current = client.getVersioned(key(1));
        assertTrue(client.compareAndSetVersion(key(1), current, value(1, 2)));
        assertArrayEquals(value(1, 2), client.get(key(1)));
        assertTrue(client.delete(key(2)));
        assertNull(client.get(key(2)));
        assertTrue(client.compareAndSet(key(2), null, value(2, 5)), "absent, so set");
        assertArrayEquals(value(2, 5), client.get(key(2)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aReadOfADeadHeadWaitsUntilItIsDeclaredDownThenReadsTheNext(final String provider) throws Exception
    {
        start(provider);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 0));
        }
        // a second client that waits long enough for any declaration a test makes
        try (KvClient patient = KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(IDS).failoverWaitMs(60_000).unavailableRetryMs(0)))
        {
            final int onNode2 = firstKeyWhoseHeadIs(2);
            assertArrayEquals(value(onNode2, 0), patient.get(key(onNode2)));
            nodes.remove(1).close();
            raases.remove(1).close();
            final ExecutorService reader = Executors.newSingleThreadExecutor();
            try
            {
                // the head does not answer and is not declared down: the read waits, it neither fails nor reads the
                // backup (which could hold a write the head has not taken yet)
                final Future<byte[]> read = reader.submit(() -> patient.get(key(onNode2)));
                Thread.sleep(200);
                assertFalse(read.isDone(), "the read waits for the head or its declaration");
                directory.membership(membership(2, Membership.DOWN));
                assertArrayEquals(value(onNode2, 0), read.get(), "read from the next replica once node 2 is down");
            }
            finally
            {
                reader.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aWriteWaitsForADeadJoinerUntilItIsDeclaredDown(final String provider) throws Exception
    {
        start(provider);
        directory.membership(membership(2, Membership.JOINING));
        try (KvClient patient = KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(IDS).failoverWaitMs(60_000).unavailableRetryMs(0)
                .membershipRefreshMs(1)))
        {
            final int onNode2 = firstKeyPlacedOn(2);
            patient.put(key(onNode2), value(onNode2, 0));
            assertTrue(nodeHolds(2, onNode2), "a joiner is written");
            nodes.remove(1).close();
            raases.remove(1).close();
            final ExecutorService writer = Executors.newSingleThreadExecutor();
            try
            {
                // a joiner made live must hold every write: one that does not answer holds the write up until it
                // is declared down, as a serving replica would
                final Future<?> write = writer.submit(() -> patient.put(key(onNode2), value(onNode2, 1)));
                Thread.sleep(200);
                assertFalse(write.isDone(), "the write waits for the joiner or its declaration");
                directory.membership(membership(3, Membership.DOWN));
                write.get();
                assertArrayEquals(value(onNode2, 1), patient.get(key(onNode2)));
            }
            finally
            {
                writer.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void writesGoOnWithoutANodeDeclaredDownOnlyOnceEveryViewListingItLiveRanOut(final String provider)
        throws Exception
    {
        start(provider);
        final int leaseMs = 3_000;
        final CachedNanoClock clock = new CachedNanoClock();
        try (KvClient writer = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS)
            .nanoClock(clock).membershipLeaseMs(leaseMs).membershipRefreshMs(1).unavailableRetryMs(0)))
        {
            final int onNode2 = firstKeyPlacedFirstOn(2);
            writer.put(key(onNode2), value(onNode2, 0));
            // declared down: yet a client that read it live a moment before may read it for a view lease, should it
            // only have paused and resume then
            nodes.remove(1).close();
            raases.remove(1).close();
            directory.membership(membership(2, Membership.DOWN));
            clock.advance(TimeUnit.MILLISECONDS.toNanos(2));
            assertArrayEquals(value(onNode2, 0), writer.get(key(onNode2)), "read from the other copy at once");
            final ExecutorService writes = Executors.newSingleThreadExecutor();
            try
            {
                final Future<?> write = writes.submit(() -> writer.put(key(onNode2), value(onNode2, 1)));
                Thread.sleep(200);
                assertFalse(write.isDone(), "the write waits out the view lease by the writer's clock");
                assertArrayEquals(value(onNode2, 0), writer.get(key(onNode2)), "reads go on meanwhile");
                clock.advance(TimeUnit.MILLISECONDS.toNanos(leaseMs));
                write.get();
                assertArrayEquals(value(onNode2, 1), writer.get(key(onNode2)));
            }
            finally
            {
                writes.shutdownNow();
            }
        }
    }

    /** @return a key whose first replica is that node, whether or not it holds a value. */
    private int firstKeyPlacedFirstOn(final long nodeId)
    {
        for (int k = 0; k < KEYS; k++)
        {
            if (client.replicasOf(key(k))[0] == nodeId)
            {
                return k;
            }
        }
        throw new AssertionError("no key of " + KEYS + " is placed first on node " + nodeId);
    }

    /** @return a key whose replicas include that node. */
    private int firstKeyPlacedOn(final long nodeId)
    {
        for (int k = 0; k < KEYS; k++)
        {
            final long[] replicas = client.replicasOf(key(k));
            if (replicas[0] == nodeId || replicas[1] == nodeId)
            {
                return k;
            }
        }
        throw new AssertionError("no key of " + KEYS + " is placed on node " + nodeId);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aNodeBackAsAnotherIncarnationIsNotReadBeforeTheMembershipListsIt(final String provider) throws Exception
    {
        start(provider);
        directory.membership(withIncarnations(2, Membership.LIVE));
        try (KvClient patient = KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(IDS).failoverWaitMs(60_000).unavailableRetryMs(0)))
        {
            final int onNode2 = firstKeyPlacedFirstOn(2);
            patient.put(key(onNode2), value(onNode2, 0));
            assertArrayEquals(value(onNode2, 0), patient.get(key(onNode2)));

            // node 2 restarts, empty, before the MetaServer has made it joining: the membership still lists the
            // incarnation that held the key as live
            nodes.remove(1).close();
            raases.remove(1).close();
            final Raas back = RaasDriver.start(KvCluster.context(provider, 2).role(NodeRecord.ROLE_MEMORY), directory);
            raases.add(1, back);
            nodes.add(1, MemoryNode.start(back, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20)
                .heapChunks(16)));
            final ExecutorService reader = Executors.newSingleThreadExecutor();
            try
            {
                final Future<byte[]> read = reader.submit(() -> patient.get(key(onNode2)));
                Thread.sleep(200);
                assertFalse(read.isDone(), "the new incarnation is not read while the membership lists the old one");
                directory.membership(withIncarnations(3, Membership.JOINING));
                assertArrayEquals(value(onNode2, 0), read.get(), "read from the other copy while node 2 joins");
            }
            finally
            {
                reader.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void aClientThatCannotReadTheMembershipDoesNotGuessOneCopy(final String provider)
    {
        start(provider);
        // a directory that reaches the nodes but cannot say how many copies keys have (its MetaServer is down)
        final Directory blind = new MembershipOf(directory, () ->
        {
            throw new UnsupportedOperationException("no MetaServer answered");
        });
        try (Raas blindRaas = RaasDriver.start(KvCluster.context(provider, 101), blind))
        {
            final KvException refused = assertThrows(KvException.class,
                () -> KvClient.connect(blindRaas, new KvClientContext().memoryNodes(IDS)));
            assertTrue(refused.getMessage().contains("cannot read the membership") &&
                refused.getMessage().contains("no MetaServer answered"), refused.getMessage());
            try (KvClient oneCopy = KvClient.connect(blindRaas, new KvClientContext().memoryNodes(IDS).replicas(1)))
            {
                assertEquals(1, oneCopy.replicas(), "one copy named: no membership needed");
            }
        }
    }

    /** @return the membership with node 2 in that state, every member listed as the incarnation running now. */
    private Membership withIncarnations(final long epoch, final int stateOfNode2)
    {
        final long[] incarnations = new long[IDS.length];
        for (int i = 0; i < IDS.length; i++)
        {
            incarnations[i] = raases.get(i).self().epoch();
        }
        return new Membership(epoch, 2, IDS, new int[]{Membership.LIVE, stateOfNode2, Membership.LIVE}, incarnations);
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void aClientRefusesCopiesItCannotKeep(final String provider)
    {
        start(provider);
        final KvException tooMany = assertThrows(KvException.class, () -> KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(1, 2).replicas(3)));
        assertTrue(tooMany.getMessage().contains("asks for 3 copies of each key") &&
            tooMany.getMessage().contains("has 2 memory nodes"), tooMany.getMessage());
        directory.membership(new Membership(5, 2, new long[]{1, 2}, new int[]{Membership.LIVE, Membership.LIVE}));
        final KvException stranger = assertThrows(KvException.class, () -> KvClient.connect(clientRaas,
            new KvClientContext().memoryNodes(IDS)));
        assertTrue(stranger.getMessage().contains("memory node 3 is not a member"), stranger.getMessage());
    }

    /**
     * A write under durability sync whose blocks are still pending on every replica (its writer died before telling
     * their nodes): a reader of the head settles the write on every replica that holds it before the head, so the value
     * it answers is on the disk of whichever replica serves last should every copy be lost. Before, it settled the head
     * alone, and the tail's copy stayed pending, off its disk (RecoveryModelTest's HEAD_TOLD_LAST).
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void aReaderSettlesAPendingWriteOnEveryReplicaThatHoldsIt(final String provider)
    {
        start(provider);
        client.put(key(0), value(0, 0));
        final long[] replicas = client.replicasOf(key(0));
        for (final long replica : replicas)
        {
            // as a writer that died between its CASes and its PERSISTs leaves it: pending on every replica
            heap(replica).set(ValueLayout.JAVA_BYTE, block(replica, 0) + KvBlockLayout.STATE_OFFSET,
                KvBlockLayout.PENDING);
        }
        assertArrayEquals(value(0, 0), client.get(key(0)));
        for (final long replica : replicas)
        {
            assertFalse(KvBlockLayout.isPending(heap(replica), block(replica, 0)),
                "memory node " + replica + " of " + java.util.Arrays.toString(replicas) + " was told to settle it");
        }
    }

    private MemorySegment heap(final long nodeId)
    {
        final int i = indexOf(nodeId);
        return raases.get(i).localMemory(nodes.get(i).heapRegion());
    }

    private long block(final long nodeId, final int k)
    {
        final int i = indexOf(nodeId);
        return IndexInspector.committedBlock(raases.get(i).localMemory(nodes.get(i).indexRegion()), heap(nodeId),
            "key-" + k);
    }

    private static int indexOf(final long nodeId)
    {
        for (int i = 0; i < IDS.length; i++)
        {
            if (IDS[i] == nodeId)
            {
                return i;
            }
        }
        throw new IllegalArgumentException("no memory node " + nodeId);
    }

    /**
     * Every copy back from a restart at once: each replica joining, refilling before it is read. A read or write of
     * their keys waits for one to serve, within the failover wait, as for a head that does not answer, and is then
     * answered; before, it failed at once ("has no serving replica") while the refill ran.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void keysWhoseReplicasAreAllJoiningWaitForARefillToEnd(final String provider) throws Exception
    {
        start(provider);
        client.put(key(0), value(0, 0));
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try (KvClient patient = KvClient.connect(clientRaas, new KvClientContext().memoryNodes(IDS).timeoutMs(2_000)
            .unavailableRetryMs(0).failoverWaitMs(120_000)))
        {
            assertArrayEquals(value(0, 0), patient.get(key(0)));
            directory.membership(new Membership(2, 2, IDS,
                new int[]{Membership.JOINING, Membership.JOINING, Membership.JOINING}));
            final Future<byte[]> read = threads.submit(() -> patient.get(key(0)));
            final Future<?> written = threads.submit(() -> patient.put(key(1), value(1, 0)));
            // long enough for both to meet the joining replicas on this client's next membership read; the outcome
            // asserted does not depend on it (failing at once, the old way, fails the test whenever it is run)
            Thread.sleep(300);
            directory.membership(new Membership(3, 2, IDS, new int[]{Membership.LIVE, Membership.LIVE,
                Membership.LIVE}));
            assertArrayEquals(value(0, 0), read.get());
            written.get();
            assertArrayEquals(value(1, 0), patient.get(key(1)));
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void keysWhoseReplicasAreAllDownFailNamingThem(final String provider)
    {
        start(provider);
        client.put(key(0), value(0, 0));
        nodes.forEach(MemoryNode::close);
        nodes.clear();
        raases.forEach(Raas::close);
        raases.clear();
        directory.membership(new Membership(2, 2, IDS, new int[]{Membership.DOWN, Membership.DOWN, Membership.DOWN}));
        final KvException thrown = assertThrows(KvException.class,
            () -> client.put(key(0), value(0, 1)));
        assertTrue(thrown.getMessage().contains("no serving replica") && thrown.getMessage().contains("down"),
            thrown.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void concurrentCompareAndSetsCountExactlyAndTheCopiesAgree(final String provider) throws Exception
    {
        start(provider);
        final int threads = 3;
        final int increments = 150;
        final byte[][] counters = {key(1000), key(1001)};
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            final List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                done.add(pool.submit(() ->
                {
                    for (int i = 0; i < increments; i++)
                    {
                        if (thread % 2 == 0)
                        {
                            Counters.increment(client, counters[i % 2]);
                        }
                        else
                        {
                            Counters.incrementVersion(client, counters[i % 2]);
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> future : done)
            {
                future.get();
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertEquals((long)threads * increments,
            Counters.valueOf(client.get(counters[0])) + Counters.valueOf(client.get(counters[1])));
        final Map<String, List<String>> copies = copies();
        for (final byte[] counter : counters)
        {
            final List<String> held = copies.get(new String(counter, StandardCharsets.UTF_8));
            assertEquals(2, held.size());
            assertEquals(held.get(0), held.get(1), "the counter's copies agree at rest");
        }
    }

    private Map<String, List<String>> copies()
    {
        final Map<String, List<String>> copies = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++)
        {
            final MemoryNode node = nodes.get(i);
            final Raas raas = raases.get(i);
            IndexInspector.committedValues(raas.localMemory(node.indexRegion()), raas.localMemory(node.heapRegion()))
                .forEach((key, value) -> copies.computeIfAbsent(key, k -> new ArrayList<>()).add(value));
        }
        return copies;
    }

    private boolean nodeHolds(final long nodeId, final int k)
    {
        final MemoryNode node = nodes.get((int)nodeId - 1);
        final Raas raas = raases.get((int)nodeId - 1);
        return IndexInspector.committedValues(raas.localMemory(node.indexRegion()), raas.localMemory(node.heapRegion()))
            .containsKey("key-" + k);
    }

    /** @return a key whose first replica is that node: a key only it serves while it is live. */
    private int firstKeyWhoseHeadIs(final long nodeId)
    {
        final MemoryNode node = nodes.get((int)nodeId - 1);
        final Raas raas = raases.get((int)nodeId - 1);
        final Map<String, String> held =
            IndexInspector.committedValues(raas.localMemory(node.indexRegion()), raas.localMemory(node.heapRegion()));
        for (int k = 0; k < KEYS; k++)
        {
            if (held.containsKey("key-" + k) && client.replicasOf(key(k))[0] == nodeId)
            {
                return k;
            }
        }
        throw new AssertionError("no key of " + KEYS + " has node " + nodeId + " first");
    }

    private static Membership membership(final long epoch, final int stateOfNode2)
    {
        return new Membership(epoch, 2, IDS, new int[]{Membership.LIVE, stateOfNode2, Membership.LIVE});
    }

    private static List<byte[]> keys()
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++)
        {
            keys.add(key(k));
        }
        return keys;
    }

    private static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k, final int round)
    {
        return ("value-" + k + "-" + round).getBytes(StandardCharsets.UTF_8);
    }
}

package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.RefillReport;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory node added to a store that holds keys, and one drained from it, while clients write and read: the keys
 * whose placement changes move through the phases of client/README.md ("Membership change"), run here by the test as
 * the change's driver would, and afterwards every key holds its last acknowledged value on the members its new
 * placement names; no read during the change saw a value older than one acknowledged before it started.
 */
class MembershipChangeTest
{
    private static final int KEYS = 120;
    private static final int LEASE_MS = 400;
    private static final int TIMEOUT_MS = 1_500;
    private static final int SWITCH_KEYS = 40;
    private static final long SWITCH_ROUND = 7;

    private final StaticDirectory directory = new StaticDirectory();
    private final Map<Long, Raas> raases = new java.util.TreeMap<>();
    private final Map<Long, MemoryNode> nodes = new java.util.TreeMap<>();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
        for (final MemoryNode node : nodes.values())
        {
            node.close();
        }
        for (final Raas raas : raases.values())
        {
            raas.close();
        }
    }

    @ParameterizedTest(name = "{0}, {1} cop(ies)")
    @CsvSource({"shm, 1", "shm, 2", "tcp, 2"})
    @Timeout(180)
    void aMemberAddedWhileClientsRunTakesItsKeysWithNoneLostOrStale(final String provider, final int replicas)
        throws Exception
    {
        final long[] before = {1, 2, 3};
        final long added = 4;
        final KvClient client = loadedCluster(provider, replicas, before);

        startNode(provider, added);
        final long[] all = {1, 2, 3, added};
        final int[] addPlacements = {Membership.PLACED, Membership.PLACED, Membership.PLACED, Membership.PLACED_AFTER};
        final Load load = new Load(client, connect(provider, 101));
        try
        {
            runChange(client, replicas, all, addPlacements, all);
        }
        finally
        {
            load.stop();
        }
        load.assertClean();
        assertTrue(load.reads() > 0 && load.writes() > 0, load.toString());

        final KvClient fresh = connect(provider, 102);
        load.assertValues(fresh);
        assertCopiesWhereThePlacementSays(fresh, load, all);
        int onAdded = 0;
        for (int k = 0; k < KEYS; k++)
        {
            onAdded += Arrays.stream(fresh.replicasOf(key(k))).anyMatch(id -> id == added) ? 1 : 0;
        }
        assertTrue(onAdded > 0, "the added member holds some keys");
        assertWrittenInTheSwitch(fresh, key -> Arrays.stream(fresh.replicasOf(key)).anyMatch(id -> id == added));
    }

    @ParameterizedTest(name = "{0}, {1} cop(ies)")
    @CsvSource({"shm, 1", "shm, 2"})
    @Timeout(180)
    void aDrainedMemberHandsItsKeysOverAndCanThenStop(final String provider, final int replicas) throws Exception
    {
        final long[] members = {1, 2, 3};
        final long drained = 3;
        final KvClient client = loadedCluster(provider, replicas, members);

        final int[] drainPlacements = {Membership.PLACED, Membership.PLACED, Membership.PLACED_BEFORE};
        final Set<String> onDrained = new HashSet<>();
        for (int k = 0; k < SWITCH_KEYS; k++)
        {
            if (Arrays.stream(client.replicasOf(switchKey(k))).anyMatch(id -> id == drained))
            {
                onDrained.add(new String(switchKey(k), StandardCharsets.UTF_8));
            }
        }
        final Load load = new Load(client, connect(provider, 101));
        try
        {
            runChange(client, replicas, members, drainPlacements, new long[]{1, 2});
        }
        finally
        {
            load.stop();
        }
        load.assertClean();

        nodes.remove(drained).close();
        raases.remove(drained).close();
        final KvClient fresh = connect(provider, 102);
        load.assertValues(fresh);
        assertCopiesWhereThePlacementSays(fresh, load, new long[]{1, 2});
        assertWrittenInTheSwitch(fresh, key -> onDrained.contains(new String(key, StandardCharsets.UTF_8)));
    }

    /**
     * The keys the driver wrote in the switch phase and again as the handover began (writes of moving keys go on
     * through both: client/README.md, "The handover"), read back with their last values; some of them moved.
     */
    private static void assertWrittenInTheSwitch(final KvClient client, final Predicate<byte[]> moved)
    {
        int moving = 0;
        for (int k = 0; k < SWITCH_KEYS; k++)
        {
            assertArrayEquals(value(k, SWITCH_ROUND), client.get(switchKey(k)), "key written in the handover " + k);
            moving += moved.test(switchKey(k)) ? 1 : 0;
        }
        assertTrue(moving > 0, "some of the keys written in the switch moved");
    }

    /** The change's driver: each phase, then (in fill and switch) passes until every moving key is in place. */
    private void runChange(final KvClient driver, final int replicas, final long[] members, final int[] placements,
        final long[] after) throws InterruptedException
    {
        final int[] live = new int[members.length];
        Arrays.fill(live, Membership.LIVE);
        final long[] incarnations = new long[members.length];
        directory.membership(new Membership(2, replicas, members, live, incarnations, placements, Membership.FILL));
        Thread.sleep(driver.membershipPhaseGapMs());
        assertTrue(fill(driver).complete(), "the fill completes");
        directory.membership(new Membership(3, replicas, members, live, incarnations, placements, Membership.SWITCH));
        Thread.sleep(driver.membershipPhaseGapMs());
        // the directory stays in each phase until these return: a write that waited for the phase to end would fail
        for (int k = 0; k < SWITCH_KEYS; k++)
        {
            driver.put(switchKey(k), value(k, SWITCH_ROUND - 1));
        }
        directory.membership(new Membership(4, replicas, members, live, incarnations, placements,
            Membership.HANDOVER));
        for (int k = 0; k < SWITCH_KEYS; k++)
        {
            driver.put(switchKey(k), value(k, SWITCH_ROUND));
        }
        Thread.sleep(driver.membershipPhaseGapMs());
        assertTrue(fill(driver).complete(), "the handover's sealing pass completes");
        directory.membership(new Membership(5, replicas, members, live, incarnations, placements,
            Membership.CLEANUP));
        Thread.sleep(driver.membershipPhaseGapMs());
        directory.membership(steady(6, replicas, after));
        Thread.sleep(driver.membershipPhaseGapMs());
    }

    private static RefillReport fill(final KvClient driver)
    {
        RefillReport report = null;
        for (int pass = 0; pass < 10 && (report == null || !report.complete()); pass++)
        {
            report = driver.fillMembershipChange();
        }
        return report;
    }

    private void assertCopiesWhereThePlacementSays(final KvClient client, final Load load, final long[] members)
    {
        for (int k = 0; k < KEYS; k++)
        {
            for (final long id : client.replicasOf(key(k)))
            {
                assertTrue(Arrays.stream(members).anyMatch(m -> m == id), "key " + k + " placed on member " + id);
                final Map<String, String> held = IndexInspector.committedValues(
                    raases.get(id).localMemory(nodes.get(id).indexRegion()),
                    raases.get(id).localMemory(nodes.get(id).heapRegion()));
                final String copy = held.get("key-" + k);
                // the inspector names each value's write id after an '@'
                assertEquals(new String(value(k, load.acked(k)), StandardCharsets.UTF_8),
                    copy == null ? null : copy.substring(0, copy.lastIndexOf('@')),
                    "key " + k + "'s copy on memory node " + id);
            }
        }
    }

    /** @return a client of the members started, in a steady membership, each key written once. */
    private KvClient loadedCluster(final String provider, final int replicas, final long[] members)
    {
        for (final long id : members)
        {
            startNode(provider, id);
        }
        directory.membership(steady(1, replicas, members));
        final KvClient client = connect(provider, 100);
        for (int k = 0; k < KEYS; k++)
        {
            client.put(key(k), value(k, 0));
        }
        return client;
    }

    private KvClient connect(final String provider, final long nodeId)
    {
        final Raas raas = RaasDriver.start(KvCluster.context(provider, nodeId), directory);
        open.add(raas);
        final KvClient client = KvClient.connect(raas, new KvClientContext().timeoutMs(TIMEOUT_MS)
            .unavailableRetryMs(0).membershipRefreshMs(50).membershipLeaseMs(LEASE_MS));
        open.add(client);
        return client;
    }

    private void startNode(final String provider, final long id)
    {
        final Raas raas = RaasDriver.start(KvCluster.context(provider, id).role(NodeRecord.ROLE_MEMORY), directory);
        raases.put(id, raas);
        nodes.put(id, MemoryNode.start(raas, new MemoryNodeContext().indexGroups(256).chunkBytes(1 << 20)
            .heapChunks(64)));
    }

    private static Membership steady(final long epoch, final int replicas, final long[] members)
    {
        final int[] live = new int[members.length];
        Arrays.fill(live, Membership.LIVE);
        return new Membership(epoch, replicas, members, live);
    }

    private static byte[] key(final int k)
    {
        return ("key-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] switchKey(final int k)
    {
        return ("written in the switch " + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k, final long round)
    {
        return ("value-" + k + "-" + round).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * One writer client putting rounds of every key, each value new, and one reader client checking that no read
     * returns a round older than the last one acknowledged before the read began (each key has one writer, so that
     * is what linearizability asks of it).
     */
    private static final class Load
    {
        private final AtomicLongArray acked = new AtomicLongArray(KEYS);
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicReference<Throwable> failed = new AtomicReference<>();
        private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        private final Thread writer;
        private final Thread reader;

        Load(final KvClient writerClient, final KvClient readerClient)
        {
            writer = Thread.ofPlatform().name("change-writer").start(() -> run(() ->
            {
                for (long round = 1; running.get(); round++)
                {
                    for (int k = 0; k < KEYS && running.get(); k++)
                    {
                        writerClient.put(key(k), value(k, round));
                        acked.set(k, round);
                        writes.incrementAndGet();
                        // a steady stream, not a flood: replaced blocks come back only after the nodes' grace period
                        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                    }
                }
            }));
            reader = Thread.ofPlatform().name("change-reader").start(() -> run(() ->
            {
                while (running.get())
                {
                    for (int k = 0; k < KEYS && running.get(); k++)
                    {
                        final long floor = acked.get(k);
                        final byte[] read = readerClient.get(key(k));
                        final long round = read == null ? -1 : roundOf(k, read);
                        if (round < floor)
                        {
                            final byte[] again = readerClient.get(key(k));
                            throw new AssertionError("key " + k + " read round " + round + " after round " + floor +
                                " was acknowledged (placed on " + Arrays.toString(readerClient.replicasOf(key(k))) +
                                ", read again: " + (again == null ? "none" : new String(again,
                                StandardCharsets.UTF_8)) + ")");
                        }
                        reads.incrementAndGet();
                    }
                }
            }));
        }

        private void run(final Runnable work)
        {
            try
            {
                work.run();
            }
            catch (final Throwable ex)
            {
                failed.compareAndSet(null, ex);
            }
        }

        private static long roundOf(final int k, final byte[] value)
        {
            final String text = new String(value, StandardCharsets.UTF_8);
            final String prefix = "value-" + k + "-";
            assertTrue(text.startsWith(prefix), "key " + k + " holds another key's value: " + text);
            return Long.parseLong(text.substring(prefix.length()));
        }

        void stop() throws InterruptedException
        {
            running.set(false);
            writer.join();
            reader.join();
        }

        long acked(final int k)
        {
            return acked.get(k);
        }

        long writes()
        {
            return writes.get();
        }

        long reads()
        {
            return reads.get();
        }

        void assertClean()
        {
            final Throwable failure = failed.get();
            if (failure != null)
            {
                throw new AssertionError("the load failed during the change (" + this + "): " + failure, failure);
            }
        }

        void assertValues(final KvClient client)
        {
            for (int k = 0; k < KEYS; k++)
            {
                assertArrayEquals(value(k, acked(k)), client.get(key(k)), "key " + k + " after the change");
            }
        }

        public String toString()
        {
            return writes.get() + " writes, " + reads.get() + " reads";
        }
    }
}

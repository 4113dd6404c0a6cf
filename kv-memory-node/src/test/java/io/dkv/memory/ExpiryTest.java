package io.dkv.memory;

import io.dkv.client.Durability;
import io.dkv.client.KvClient;
import io.dkv.client.KvClientContext;
import io.dkv.client.Versioned;
import io.dkv.format.SlotWord;
import io.dkv.raas.Raas;
import io.dkv.raas.StaticDirectory;
import io.dkv.raas.driver.RaasDriver;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys with an expiry time: read back until the clock reaches it, a miss to every operation after,
 * their expiry kept, changed or taken away by compare-and-set, their slots and chunks reclaimed
 * when nobody reads them again, and dropped rather than loaded back by a restarted node. Time is
 * the tests' own clock ({@link CachedEpochClock}), moved by hand: nothing waits for an expiry. The node's scan
 * comes each interval of its own clock ({@link CachedNanoClock}), moved by hand too.
 */
class ExpiryTest
{
    private static final long START = 1_767_225_600_000L;
    private static final long NODE = 9;
    private static final long CLIENT = 90;
    private static final int LONG_GRACE_MS = 30_000;
    private static final int LONG_TIMEOUT_MS = 20_000;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final CachedEpochClock clock = new CachedEpochClock();

    ExpiryTest()
    {
        clock.update(START);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private KvClient client(final KvCluster cluster)
    {
        return client(cluster, 200);
    }

    /** @param timeoutMs a read's deadline, below the node's grace period (the client refuses one that is not). */
    private KvClient client(final KvCluster cluster, final int timeoutMs)
    {
        return KvClient.connect(cluster.clientRaas,
            new KvClientContext().memoryNodes(KvCluster.MEMORY_NODE_ID).timeoutMs(timeoutMs)
            .epochClock(clock));
    }

    /**
     * A node whose scan for expired keys does not run during a test (readers' own reclamation shows alone). Its grace
     * period, and so its clients' read deadline, is long: these tests wait for no reclamation, and a read a busy
     * machine holds up past a short deadline is refused, which is not what they are about.
     */
    private KvCluster clusterWithoutScan()
    {
        return new KvCluster("shm", 1,
            context -> context.epochClock(clock).expiryScanMs(Integer.MAX_VALUE).graceMs(LONG_GRACE_MS));
    }

    @Test
    void aKeyReadsBackUntilItsExpiryThenIsAMissToEveryOperation() throws Exception
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            final byte[] key = bytes("session");
            client.put(key, bytes("token"), START + 1_000);
            client.put(bytes("other"), bytes("stays"));
            assertArrayEquals(bytes("token"), client.get(key));
            assertEquals(1_000, client.ttlMillis(key));
            clock.advance(999);
            assertArrayEquals(bytes("token"), client.get(key));
            assertArrayEquals(bytes("token"), client.multiGet(List.of(key)).get(0));
            assertEquals(START + 1_000, client.getVersioned(key).expireAtMillis());
            assertEquals(1, client.ttlMillis(key));

            clock.advance(1);
            assertNull(client.get(key));
            assertNull(client.getAsync(key).get());
            final List<byte[]> both = client.multiGet(List.of(key, bytes("other")));
            assertNull(both.get(0));
            assertArrayEquals(bytes("stays"), both.get(1));
            assertNull(client.getVersioned(key));
            assertEquals(-2, client.ttlMillis(key));
            final MemorySegment dst = MemorySegment.ofArray(new byte[16]);
            assertEquals(-1, client.get(MemorySegment.ofArray(key), dst));
            assertFalse(client.compareAndSet(key, bytes("token"), bytes("swapped")),
                "an expired value matches nothing");
            assertFalse(client.delete(key), "an expired key has nothing to delete");
            assertFalse(client.expireAt(key, START + 100_000));
            assertFalse(client.persist(key));
            assertNull(client.get(key));
        }
    }

    @Test
    void anExpiredKeyIsAnAbsentOneToCompareAndSetAndPut()
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            final byte[] key = bytes("lock");
            client.put(key, bytes("holder 1"), START + 10);
            assertFalse(client.compareAndSet(key, null, bytes("holder 2"), START + 20),
                "SET NX while it holds a value");
            clock.advance(10);
            assertTrue(client.compareAndSet(key, null, bytes("holder 2"), START + 20), "SET NX once it expired");
            assertArrayEquals(bytes("holder 2"), client.get(key));
            assertEquals(10, client.ttlMillis(key));
            clock.advance(10);
            client.put(key, bytes("holder 3"));
            assertArrayEquals(bytes("holder 3"), client.get(key));
            assertEquals(-1, client.ttlMillis(key), "a put gives no expiry: the key has none now");
            assertEquals(1, committedSlots(cluster, key), "the put replaced the expired slot");
        }
    }

    @Test
    void ttlIsMinusTwoForNoKeyMinusOneForNoExpiryElseTheMillisecondsLeft()
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            assertEquals(-2, client.ttlMillis(bytes("missing")));
            client.put(bytes("forever"), bytes("v"));
            assertEquals(-1, client.ttlMillis(bytes("forever")));
            client.put(MemorySegment.ofArray(bytes("soon")), MemorySegment.ofArray(bytes("v")), START + 12_345);
            assertEquals(12_345, client.ttlMillis(bytes("soon")));
            clock.advance(345);
            assertEquals(12_000, client.ttlMillis(bytes("soon")));
            client.put(bytes("past"), bytes("v"), START - 1);
            assertNull(client.get(bytes("past")), "an expiry in the past leaves no value");
            assertEquals(-2, client.ttlMillis(bytes("past")));
            assertThrows(IllegalArgumentException.class, () -> client.put(bytes("k"), bytes("v"), -5));
        }
    }

    @Test
    void anExpiryIsKeptChangedOrTakenAwayWithTheValueKept()
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            final byte[] key = bytes("counter");
            client.put(key, bytes("1"), START + 5_000);

            // INCR, SET ... KEEPTTL: the version's expiry goes with the new value
            final Versioned read = client.getVersioned(key);
            assertTrue(client.compareAndSetVersion(key, read, bytes("2"), read.expireAtMillis()));
            assertEquals(5_000, client.ttlMillis(key));
            assertArrayEquals(bytes("2"), client.get(key));

            // EXPIRE / PEXPIREAT on an existing key, and on a missing one
            assertTrue(client.expireAt(key, START + 60_000));
            assertArrayEquals(bytes("2"), client.get(key));
            assertEquals(60_000, client.ttlMillis(key));
            assertFalse(client.expireAt(bytes("missing"), START + 60_000));
            assertNull(client.get(bytes("missing")), "expiring a missing key makes none");

            // PERSIST: true once, false when there is no expiry to take away
            assertTrue(client.persist(key));
            assertEquals(-1, client.ttlMillis(key));
            assertFalse(client.persist(key));
            assertArrayEquals(bytes("2"), client.get(key));

            // SET without KEEPTTL clears it; compareAndSetVersion without an expiry too
            assertTrue(client.expireAt(key, START + 1_000));
            final Versioned withExpiry = client.getVersioned(key);
            assertTrue(client.compareAndSetVersion(key, withExpiry, bytes("3")));
            assertEquals(-1, client.ttlMillis(key));

            // a version that expired since it was read names no value any more
            assertTrue(client.expireAt(key, START + 1_000));
            final Versioned expiring = client.getVersioned(key);
            clock.advance(1_000);
            assertFalse(client.compareAndSetVersion(key, expiring, bytes("4"), expiring.expireAtMillis()));
            assertNull(client.get(key));

            // EXPIRE with a time in the past removes the key
            client.put(key, bytes("5"));
            assertTrue(client.expireAt(key, START));
            assertEquals(-2, client.ttlMillis(key));
        }
    }

    @Test
    void racingIncrementsAndExpiryChangesLoseNothing() throws Exception
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            final byte[] key = bytes("hits");
            client.put(key, bytes("0"), START + 1_000_000);
            final int perThread = 300;
            Race.run(4, thread ->
            {
                final boolean incrementer = thread % 2 == 0;
                for (int i = 0; i < perThread; i++)
                {
                    if (incrementer)
                    {
                        // INCR: keeps whatever expiry the key has when it is read
                        while (true)
                        {
                            final Versioned current = client.getVersioned(key);
                            final long next = Long.parseLong(new String(current.value(), StandardCharsets.UTF_8)) + 1;
                            if (client.compareAndSetVersion(key, current, bytes(Long.toString(next)),
                                current.expireAtMillis()))
                            {
                                break;
                            }
                        }
                    }
                    else if (i % 2 == 0)
                    {
                        assertTrue(client.expireAt(key, START + 2_000_000 + thread * 10_000L + i));
                    }
                    else
                    {
                        client.persist(key);
                    }
                }
            });
            assertArrayEquals(bytes(Long.toString(2L * perThread)), client.get(key),
                "no increment lost to an EXPIRE or PERSIST");
            final long ttl = client.ttlMillis(key);
            assertTrue(ttl == -1 || ttl > 1_000_000, "the last EXPIRE or PERSIST stands: " + ttl);
            assertEquals(1, committedSlots(cluster, key));
        }
    }

    @Test
    void aReaderEmptiesTheSlotOfAnExpiredKey() throws Exception
    {
        try (KvCluster cluster = clusterWithoutScan(); KvClient client = client(cluster, LONG_TIMEOUT_MS))
        {
            final byte[] key = bytes("read after expiry");
            client.put(key, bytes("v"), START + 1);
            assertEquals(1, committedSlots(cluster, key));
            clock.advance(1);
            assertNull(client.get(key));
            assertEquals(0, committedSlots(cluster, key), "the reader took its slot out of the index");
            assertEquals(0, cluster.memoryNode.keysExpired());
        }
    }

    @Test
    void anExpiredKeyNobodyReadsIsReclaimedByTheNode() throws Exception
    {
        try (KvCluster cluster =
            new KvCluster("shm", 1, context -> context.epochClock(clock).expiryScanMs(10).graceMs(300)))
        {
            final byte[] key = bytes("written once, never read");
            // a client that goes away: its chunk is retired, and comes back once no slot points into it
            try (KvClient writer = client(cluster))
            {
                writer.put(key, new byte[900], START + 1_000);
            }
            assertEquals(1, committedSlots(cluster, key));
            assertEquals(0, cluster.memoryNode.chunksReclaimed(), "an unexpired key keeps its chunk");
            clock.advance(1_000);
            KvCluster.awaitTrue(() -> cluster.memoryNode.keysExpired() == 1);
            assertEquals(0, committedSlots(cluster, key), "the node's scan emptied its slot");
            KvCluster.awaitTrue(() -> cluster.memoryNode.chunksReclaimed() >= 1);
            try (KvClient reader = client(cluster))
            {
                assertNull(reader.get(key));
            }
        }
    }

    /**
     * A sealed slot tells the writers of a key a membership change moves where its writes are decided
     * (client/README.md, "The handover"): the node's scan leaves it, expired or not, and empties the key's slot once
     * the seal is gone.
     */
    @Test
    void theNodesScanLeavesASealedSlot() throws Exception
    {
        try (KvCluster cluster =
            new KvCluster("shm", 1, context -> context.epochClock(clock).expiryScanMs(10).graceMs(300));
            KvClient client = client(cluster))
        {
            final byte[] sealed = bytes("sealed by a change");
            final byte[] plain = bytes("not sealed");
            client.put(sealed, bytes("v"), START + 1_000);
            client.put(plain, bytes("v"), START + 1_000);
            final MemorySegment index = cluster.index();
            final long[] slot = {-1};
            IndexInspector.forEachSlot(index, (offset, word) ->
            {
                if (SlotWord.isCommitted(word) &&
                    IndexInspector.committedBlock(index, cluster.heap(), "sealed by a change") ==
                    SlotWord.blockOffset(word))
                {
                    slot[0] = offset;
                }
            });
            final long word = index.get(WORD, slot[0]);
            index.set(WORD, slot[0], SlotWord.sealed(word));
            clock.advance(1_000);
            KvCluster.awaitTrue(() -> cluster.memoryNode.keysExpired() == 1);
            assertEquals(0, committedSlots(cluster, plain), "the unsealed key's slot emptied");
            assertEquals(1, committedSlots(cluster, sealed), "the sealed one kept");
            assertNull(client.get(sealed), "and read as the expired value it names");
            index.set(WORD, slot[0], word);
            KvCluster.awaitTrue(() -> cluster.memoryNode.keysExpired() == 2);
            assertEquals(0, committedSlots(cluster, sealed), "emptied once its seal is gone");
        }
    }

    @Test
    void theNodesScanComesOnceAnIntervalOfItsClockHasPassed() throws Exception
    {
        final int scanMs = 60_000;
        final CachedNanoClock scanClock = new CachedNanoClock();
        try (KvCluster cluster = new KvCluster("shm", 1,
            context -> context.epochClock(clock).nanoClock(scanClock).expiryScanMs(scanMs).graceMs(300));
            KvClient client = client(cluster))
        {
            final byte[] key = bytes("expired, never read");
            client.put(key, bytes("v"), START + 1_000);
            clock.advance(1_000);
            assertEquals(1, committedSlots(cluster, key), "expired, and no scan yet");
            scanClock.advance(TimeUnit.MILLISECONDS.toNanos(scanMs));
            KvCluster.awaitTrue(() -> cluster.memoryNode.keysExpired() == 1);
            assertEquals(0, committedSlots(cluster, key), "the scan emptied its slot");
        }
    }

    @Test
    void aRestartedNodeKeepsUnexpiredExpiriesAndDropsExpiredKeys(@TempDir final Path data)
    {
        final StaticDirectory directory = new StaticDirectory();
        final MemoryNodeContext nodeContext =
            new MemoryNodeContext().indexGroups(1024).chunkBytes(2 << 20).heapChunks(8).dataDir(data)
            .epochClock(clock).expiryScanMs(Integer.MAX_VALUE);
        Raas memoryRaas = RaasDriver.start(KvCluster.context("shm", NODE), directory);
        MemoryNode memoryNode = MemoryNode.start(memoryRaas, nodeContext);
        try (Raas clientRaas = RaasDriver.start(KvCluster.context("shm", CLIENT), directory);
            KvClient client =
                KvClient.connect(clientRaas, new KvClientContext().memoryNodes(NODE).durability(Durability.SYNC)
                .epochClock(clock)))
        {
            client.put(bytes("short"), bytes("a"), START + 1_000);
            client.put(bytes("long"), bytes("b"), START + 100_000);
            client.put(bytes("forever"), bytes("c"));
            client.put(bytes("kept ttl"), bytes("d"), START + 50_000);
            final Versioned read = client.getVersioned(bytes("kept ttl"));
            assertTrue(client.compareAndSetVersion(bytes("kept ttl"), read, bytes("e"), read.expireAtMillis()));
            clock.advance(2_000);

            memoryNode.close();
            memoryRaas.close();
            memoryRaas = RaasDriver.start(KvCluster.context("shm", NODE), directory);
            memoryNode = MemoryNode.start(memoryRaas, nodeContext);
            assertEquals(3, memoryNode.keysRecovered(), "the expired key is not loaded back");
            assertNull(KvCluster.afterRestart(() -> client.get(bytes("short"))));
            assertArrayEquals(bytes("b"), client.get(bytes("long")));
            assertEquals(98_000, client.ttlMillis(bytes("long")));
            assertEquals(-1, client.ttlMillis(bytes("forever")));
            assertArrayEquals(bytes("e"), client.get(bytes("kept ttl")));
            assertEquals(48_000, client.ttlMillis(bytes("kept ttl")));

            // gone from the disk too: with the clock put back, it still does not come back
            clock.update(START);
            memoryNode.close();
            memoryRaas.close();
            memoryRaas = RaasDriver.start(KvCluster.context("shm", NODE), directory);
            memoryNode = MemoryNode.start(memoryRaas, nodeContext);
            assertEquals(3, memoryNode.keysRecovered());
            assertNull(KvCluster.afterRestart(() -> client.get(bytes("short"))));
        }
        finally
        {
            memoryNode.close();
            memoryRaas.close();
        }
    }

    @Test
    void aKeyStoreOfTheFormatWithoutExpiryIsRefused(@TempDir final Path data) throws Exception
    {
        try (Options options = new Options().setCreateIfMissing(true); RocksDB old =
            RocksDB.open(options, data.toString()))
        {
            old.put(bytes("key"), bytes("a value of format 1"));
        }
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> KeyStore.open(data, 1, null));
        assertTrue(refused.getMessage().contains("format 1"), refused.getMessage());
    }

    private static int committedSlots(final KvCluster cluster, final byte[] key)
    {
        return cluster.committedSlotsByKey().getOrDefault(new String(key, StandardCharsets.UTF_8), 0);
    }
}

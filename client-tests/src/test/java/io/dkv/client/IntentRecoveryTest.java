package io.dkv.client;

import io.dkv.client.txn.RawKeys;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;
import io.dkv.raas.StaticDirectory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A coordinator that died mid-commit leaves intents, and every other client finishes or undoes its transaction by the
 * rules (client/README.md, "Transactions"): a pending transaction is aborted at its primary once it has stood for the
 * push time, a committed one reads as committed and is rolled forward by the writes that meet it, its primary last,
 * and the coordinator's own late decision then misses. Each single-key operation reads and writes such keys as the
 * transaction's outcome says. The intents are put in place here as a coordinator would, then left.
 */
class IntentRecoveryTest
{
    private static final long[] IDS = {1, 2, 3};
    private static final int PUSH_MS = 300;
    private static final byte[] PRIMARY = bytes("primary");
    private static final byte[] SECONDARY = bytes("secondary");
    private static final long TXN = 0x5eed;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aPendingTransactionLeftBehindIsAbortedByItsReadersAndItsLateCommitMisses(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        client.put(PRIMARY, bytes("p0"));
        client.put(SECONDARY, bytes("s0"));
        final Versioned primaryPlaced = placePending(raw);

        final long waitStarted = System.nanoTime();
        assertArrayEquals(bytes("s0"), client.get(SECONDARY), "a pending transaction's key reads as before it");
        assertTrue(System.nanoTime() - waitStarted >= PUSH_MS * 1_000_000L,
            "a reader waits for a pending transaction until it has stood for the push time");
        assertArrayEquals(bytes("p0"), client.get(PRIMARY));
        assertFalse(KvBlockLayout.isIntent(raw.read(PRIMARY).expireAtMillis()), "the reader aborted it at its primary");
        assertFalse(raw.swap(PRIMARY, primaryPlaced, committedRecord(), KvBlockLayout.INTENT),
            "the coordinator's commit, late, misses: its primary moved on");

        assertTrue(KvBlockLayout.isIntent(raw.read(SECONDARY).expireAtMillis()), "the aborted secondary stands");
        assertArrayEquals(bytes("s0"), client.get(SECONDARY), "read as its prior value");
        assertEquals(List.of("s0", "p0"), texts(client.multiGet(List.of(SECONDARY, PRIMARY))));
        assertArrayEquals(bytes("s0"), client.getAsync(SECONDARY).join());
        assertTrue(client.compareAndSet(SECONDARY, bytes("s0"), bytes("s1")), "compared with its value, s0");
        assertFalse(KvBlockLayout.isIntent(raw.read(SECONDARY).expireAtMillis()), "the write resolved it first");
        assertArrayEquals(bytes("s1"), client.get(SECONDARY));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aCommittedTransactionLeftUnresolvedReadsAsCommittedAndWritesFinishItPrimaryLast(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        client.put(PRIMARY, bytes("p0"));
        client.put(SECONDARY, bytes("s0"));
        final Versioned primaryPlaced = placePending(raw);
        assertTrue(raw.swap(PRIMARY, primaryPlaced, committedRecord(), KvBlockLayout.INTENT), "the commit");

        assertArrayEquals(bytes("s1"), client.get(SECONDARY), "its secondary reads as committed");
        assertArrayEquals(bytes("p1"), client.get(PRIMARY));
        assertEquals(List.of("s1", "p1"), texts(client.multiGet(List.of(SECONDARY, PRIMARY))));
        assertEquals(-1, client.ttlMillis(SECONDARY));
        assertArrayEquals(bytes("p1"), client.getVersioned(PRIMARY).value(), "a version is of a value, resolved");
        assertFalse(KvBlockLayout.isIntent(raw.read(PRIMARY).expireAtMillis()));
        assertFalse(KvBlockLayout.isIntent(raw.read(SECONDARY).expireAtMillis()),
            "the primary was resolved only after its secondary");
        assertArrayEquals(bytes("s1"), client.get(SECONDARY));
        client.put(SECONDARY, bytes("s2"));
        assertArrayEquals(bytes("s2"), client.get(SECONDARY));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void singleKeyWritesMeetingAPendingIntentWaitThenAbortIt(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        client.put(PRIMARY, bytes("p0"));
        client.put(SECONDARY, bytes("s0"));
        placePending(raw);

        assertTrue(client.delete(SECONDARY), "s0 was its value");
        assertFalse(KvBlockLayout.isIntent(raw.read(PRIMARY).expireAtMillis()),
            "the delete waited on the pending transaction, then aborted it at its primary");
        assertNull(client.get(SECONDARY));
        assertArrayEquals(bytes("p0"), client.get(PRIMARY), "aborted at its primary by the delete's wait");
        client.putAsync(PRIMARY, bytes("p2")).join();
        assertArrayEquals(bytes("p2"), client.get(PRIMARY));
        final Versioned primary = raw.read(PRIMARY);
        assertNotNull(primary);
        assertFalse(KvBlockLayout.isIntent(primary.expireAtMillis()));
    }

    /** The coordinator's steps 1 and 2: the primary's intent, pending, then the secondary's. */
    private static Versioned placePending(final RawKeys raw)
    {
        final Versioned primary = raw.read(PRIMARY);
        assertTrue(raw.swap(PRIMARY, primary, IntentLayout.encode(IntentLayout.PRIMARY_PENDING, TXN, null,
            bytes("p1"), 0, primary.value(), 0, null), KvBlockLayout.INTENT));
        final Versioned placed = raw.lastWritten();
        final Versioned secondary = raw.read(SECONDARY);
        assertTrue(raw.swap(SECONDARY, secondary, IntentLayout.encode(IntentLayout.SECONDARY, TXN, PRIMARY,
            bytes("s1"), 0, secondary.value(), 0, null), KvBlockLayout.INTENT));
        return placed;
    }

    private static byte[] committedRecord()
    {
        return IntentLayout.encode(IntentLayout.PRIMARY_COMMITTED, TXN, null, bytes("p1"), 0, bytes("p0"), 0,
            new byte[][]{SECONDARY});
    }

    private KvClient cluster(final int replicas)
    {
        return open.store(directory, IDS, replicas, new KvClientContext().txnPushMs(PUSH_MS));
    }

    private static List<String> texts(final List<byte[]> values)
    {
        return values.stream().map(value -> value == null ? "null" : new String(value, StandardCharsets.UTF_8))
            .toList();
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

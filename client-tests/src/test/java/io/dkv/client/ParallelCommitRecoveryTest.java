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
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A parallel commit's coordinator that stopped at any point of its stage leaves intents that every other client
 * finishes or undoes by the write ids they name (client/README.md, "Parallel commit", rule 3): a STAGING record whose
 * every intent stands is committed, and a reader decides it without waiting; one whose secondary still holds the
 * write its swap expects is, past the push time, fenced there and aborted; a secondary whose primary still holds the
 * write the STAGING swap expects is, past the push time, rolled back once that primary is fenced. In each case the
 * coordinator's late swap misses, so it can never answer committed a transaction a reader took as aborted. The
 * intents are put in place here as a coordinator would, then left.
 */
class ParallelCommitRecoveryTest
{
    private static final long[] IDS = {1, 2, 3};
    private static final int PUSH_MS = 300;
    private static final byte[] PRIMARY = bytes("primary");
    private static final byte[] SECONDARY = bytes("secondary");
    private static final long TXN = 0x9a4a;

    private final StaticDirectory directory = new StaticDirectory();
    private final Opened open = new Opened();

    @AfterEach
    void close() throws Exception
    {
        open.close();
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aStagingTransactionWhoseEveryIntentStandsIsCommittedByItsFirstReader(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        final Versioned primary = put(client, PRIMARY, "p0");
        final Versioned secondary = put(client, SECONDARY, "s0");
        assertTrue(raw.swapExact(PRIMARY, primary, staging(primary, secondary), KvBlockLayout.INTENT), "STAGING");
        final Versioned stagingPlaced = raw.lastWritten();
        assertTrue(raw.swapExact(SECONDARY, secondary, secondaryIntent(primary), KvBlockLayout.INTENT),
            "the secondary's intent: the transaction is committed now, its decision not yet made");

        assertArrayEquals(bytes("s1"), client.get(SECONDARY), "read as committed");
        assertArrayEquals(bytes("p1"), client.get(PRIMARY));
        assertEquals(List.of("s1", "p1"), texts(client.multiGet(List.of(SECONDARY, PRIMARY))));
        assertFalse(raw.swapExact(PRIMARY, stagingPlaced, bytes("late"), KvBlockLayout.INTENT),
            "the coordinator's decision, late, misses: a reader decided it");
        client.put(PRIMARY, bytes("p2"));
        assertArrayEquals(bytes("s1"), client.get(SECONDARY));
        assertArrayEquals(bytes("p2"), client.get(PRIMARY));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aStagingTransactionMissingASecondaryIsFencedThereAndAbortedPastThePushTime(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        final Versioned primary = put(client, PRIMARY, "p0");
        final Versioned secondary = put(client, SECONDARY, "s0");
        assertTrue(raw.swapExact(PRIMARY, primary, staging(primary, secondary), KvBlockLayout.INTENT), "STAGING");

        final long started = System.nanoTime();
        assertArrayEquals(bytes("p0"), client.get(PRIMARY), "aborted: read as before it");
        assertTrue(System.nanoTime() - started >= PUSH_MS * 1_000_000L,
            "a reader waits for a STAGING transaction until it has stood for the push time");
        final Versioned fenced = raw.read(SECONDARY);
        assertArrayEquals(bytes("s0"), fenced.value(), "the secondary holds its value, written again");
        assertNotEquals(secondary.writeId, fenced.writeId, "under a new write id: the fence");
        assertFalse(raw.swapExact(SECONDARY, secondary, secondaryIntent(primary), KvBlockLayout.INTENT),
            "the coordinator's swap of its secondary, late, misses: it can never stand whole");
        assertFalse(KvBlockLayout.isIntent(raw.read(PRIMARY).expireAtMillis()), "the STAGING record was aborted");
        assertEquals(List.of("p0", "s0"), texts(client.multiGet(List.of(PRIMARY, SECONDARY))));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aSecondaryWhosePrimaryStillHoldsTheExpectedWriteIsRolledBackOnceThePrimaryIsFenced(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        final Versioned primary = put(client, PRIMARY, "p0");
        final Versioned secondary = put(client, SECONDARY, "s0");
        assertTrue(raw.swapExact(SECONDARY, secondary, secondaryIntent(primary), KvBlockLayout.INTENT),
            "the secondary's intent, its STAGING record not yet swapped in");

        final long started = System.nanoTime();
        assertArrayEquals(bytes("s0"), client.get(SECONDARY), "rolled back: read as before it");
        assertTrue(System.nanoTime() - started >= PUSH_MS * 1_000_000L,
            "a reader waits for the STAGING record to land until the push time");
        assertNotEquals(primary.writeId, raw.read(PRIMARY).writeId, "the primary was fenced");
        assertFalse(raw.swapExact(PRIMARY, primary, staging(primary, secondary), KvBlockLayout.INTENT),
            "the coordinator's STAGING swap, late, misses");
        assertTrue(client.compareAndSet(SECONDARY, bytes("s0"), bytes("s2")), "a write rolls it back first");
        assertEquals(List.of("p0", "s2"), texts(client.multiGet(List.of(PRIMARY, SECONDARY))));
    }

    @ParameterizedTest(name = "r = {0}")
    @ValueSource(ints = {1, 2})
    void aSecondaryWhosePrimaryMovedOnFromTheExpectedWriteIsAborted(final int replicas)
    {
        final KvClient client = cluster(replicas);
        final RawKeys raw = client.rawKeys();
        final Versioned primary = put(client, PRIMARY, "p0");
        final Versioned secondary = put(client, SECONDARY, "s0");
        assertTrue(raw.swapExact(SECONDARY, secondary, secondaryIntent(primary), KvBlockLayout.INTENT));
        client.put(PRIMARY, bytes("p0"));

        assertArrayEquals(bytes("s0"), client.get(SECONDARY), "its STAGING record can never land: aborted");
        assertFalse(raw.swapExact(PRIMARY, primary, staging(primary, secondary), KvBlockLayout.INTENT),
            "the same value under another write id is another write");
        client.put(SECONDARY, bytes("s3"));
        assertFalse(KvBlockLayout.isIntent(raw.read(SECONDARY).expireAtMillis()));
        assertArrayEquals(bytes("s3"), client.get(SECONDARY));
    }

    private static Versioned put(final KvClient client, final byte[] key, final String value)
    {
        client.put(key, bytes(value));
        return client.rawKeys().read(key);
    }

    /** The primary's STAGING record: its secondary, and the write id the secondary's swap expects. */
    private static byte[] staging(final Versioned primary, final Versioned secondary)
    {
        return IntentLayout.encode(IntentLayout.PRIMARY_STAGING, TXN, null, bytes("p1"), KvBlockLayout.NEVER,
            primary.value(), KvBlockLayout.NEVER, new byte[][]{SECONDARY}, new long[]{secondary.writeId});
    }

    /** The secondary's intent, naming the write id the primary's STAGING swap expects. */
    private static byte[] secondaryIntent(final Versioned primary)
    {
        return IntentLayout.encode(IntentLayout.SECONDARY, TXN, PRIMARY, bytes("s1"), KvBlockLayout.NEVER,
            bytes("s0"), KvBlockLayout.NEVER, null, new long[]{primary.writeId});
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

package io.dkv.client.txn;

import io.dkv.client.Versioned;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An intent's record reads back as written ({@link IntentLayout}), and only a block marked as an intent is one. */
class IntentRecordTest
{
    private static final byte[] KEY = bytes("key");

    @Test
    void aCommittedPrimaryReadsBackWithItsValuesAndSecondaries()
    {
        final byte[] record = IntentLayout.encode(IntentLayout.PRIMARY_COMMITTED, 42, null, bytes("new"), 7,
            bytes("prior"), 9, new byte[][]{bytes("s1"), bytes("second-2")});
        assertTrue(IntentLayout.isRecord(record));
        final Intent intent = Intent.of(KEY, intentBlock(record));
        assertTrue(intent.isPrimary());
        assertTrue(intent.isCommitted());
        assertFalse(intent.isPending());
        assertEquals(42, intent.txnId);
        assertArrayEquals(KEY, intent.primaryKey, "a primary's key is its own");
        assertArrayEquals(bytes("new"), intent.newValue);
        assertEquals(7, intent.newExpireAt);
        assertArrayEquals(bytes("prior"), intent.prior);
        assertEquals(9, intent.priorExpireAt);
        assertEquals(2, intent.secondaries.length);
        assertArrayEquals(bytes("second-2"), intent.secondaries[1]);
    }

    @Test
    void aSecondaryNamesItsPrimaryAndAnAbsentValueIsNoneNotEmpty()
    {
        final byte[] record = IntentLayout.encode(IntentLayout.SECONDARY, 43, bytes("the-primary"), null, 0,
            new byte[0], 0, null);
        final Intent intent = Intent.of(KEY, intentBlock(record));
        assertFalse(intent.isPrimary());
        assertArrayEquals(bytes("the-primary"), intent.primaryKey);
        assertNull(intent.newValue, "the transaction deletes the key");
        assertArrayEquals(new byte[0], intent.prior, "an empty value is a value");
    }

    @Test
    void aStagingPrimaryListsTheWriteIdEachSecondarysSwapExpectsAndIsDecidedByItsKindAlone()
    {
        final byte[] record = IntentLayout.encode(IntentLayout.PRIMARY_STAGING, 45, null, bytes("new"), 0,
            bytes("prior"), 0, new byte[][]{bytes("s1"), bytes("second-2")}, new long[]{-7, 99});
        assertTrue(IntentLayout.isRecord(record));
        final Intent staging = Intent.of(KEY, intentBlock(record));
        assertTrue(staging.isPrimary());
        assertTrue(staging.isStaging());
        assertFalse(staging.isCommitted());
        assertTrue(staging.isParallel());
        assertArrayEquals(bytes("second-2"), staging.secondaries[1]);
        assertArrayEquals(new long[]{-7, 99}, staging.expected);

        final Intent decided = Intent.of(KEY, intentBlock(Intent.decided(record)));
        assertTrue(decided.isCommitted());
        assertArrayEquals(new long[]{-7, 99}, decided.expected, "decided COMMITTED, it keeps the rest");
        assertArrayEquals(bytes("prior"), decided.prior);
        assertThrows(IllegalArgumentException.class, () -> IntentLayout.encode(IntentLayout.PRIMARY_STAGING, 1, null,
            bytes("v"), 0, null, 0, new byte[][]{bytes("s1")}, new long[]{1, 2}), "a write id per secondary");
    }

    @Test
    void aParallelSecondaryNamesTheWriteIdItsPrimarysSwapExpects()
    {
        final byte[] record = IntentLayout.encode(IntentLayout.SECONDARY, 46, bytes("the-primary"), bytes("n"), 0,
            bytes("p"), 0, null, new long[]{Long.MIN_VALUE + 3});
        assertTrue(IntentLayout.isRecord(record));
        assertFalse(IntentLayout.isRecord(java.util.Arrays.copyOf(record, record.length - 1)), "its id cut short");
        final Intent intent = Intent.of(KEY, intentBlock(record));
        assertFalse(intent.isPrimary());
        assertTrue(intent.isParallel());
        assertEquals(Long.MIN_VALUE + 3, intent.primaryExpected());
        assertArrayEquals(bytes("p"), intent.prior);
        assertFalse(Intent.of(KEY, intentBlock(IntentLayout.encode(IntentLayout.SECONDARY, 46, bytes("the-primary"),
            bytes("n"), 0, bytes("p"), 0, null))).isParallel(), "the two-phase protocol's secondary names none");
    }

    @Test
    void onlyABlockMarkedAsAnIntentIsOneAndABrokenRecordIsNamed()
    {
        final byte[] record = IntentLayout.encode(IntentLayout.PRIMARY_PENDING, 44, null, bytes("v"), 0, null, 0,
            null);
        assertNull(Intent.of(KEY, new Versioned(record, KvBlockLayout.NEVER, 1, 1, 0, 0, 0, 1)),
            "a value that happens to hold a record's bytes is a value");
        assertFalse(KvBlockLayout.isExpired(KvBlockLayout.INTENT, Long.MAX_VALUE), "an intent never expires");
        assertThrows(IllegalStateException.class, () -> Intent.of(KEY, intentBlock(bytes("not a record"))));
        assertThrows(IllegalArgumentException.class, () -> IntentLayout.encode(IntentLayout.SECONDARY, 1, KEY,
            new byte[KvBlockLayout.MAX_VALUE_LENGTH], 0, new byte[1], 0, null), "a record past the value limit");
    }

    private static Versioned intentBlock(final byte[] record)
    {
        return new Versioned(record, KvBlockLayout.INTENT, 1, 1, 0, 0, 0, 1);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package io.dkv.client.txn;

import io.dkv.client.KvErrors;
import io.dkv.client.Versioned;
import io.dkv.format.IntentLayout;
import io.dkv.format.KvBlockLayout;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A transaction's intent as read from a key ({@link IntentLayout}): which transaction, which key is its primary,
 * its state there, and the values it writes and replaces.
 */
final class Intent
{
    final byte kind;
    final long txnId;
    /** The primary's key: the key read, for a primary. */
    final byte[] primaryKey;
    /** The value written, or null: the transaction deletes the key. */
    final byte[] newValue;
    final long newExpireAt;
    /** The value replaced, or null: the key had none. */
    final byte[] prior;
    final long priorExpireAt;
    /** A committed or staging primary's secondary keys; empty otherwise. */
    final byte[][] secondaries;
    /**
     * A parallel commit's write ids, else null: a primary's, per secondary, the one its swap there expects; a
     * secondary's, one, the one its primary's swap expects.
     */
    final long[] expected;

    private Intent(final byte kind, final long txnId, final byte[] primaryKey, final byte[] newValue,
        final long newExpireAt, final byte[] prior, final long priorExpireAt, final byte[][] secondaries,
        final long[] expected)
    {
        this.expected = expected;
        this.kind = kind;
        this.txnId = txnId;
        this.primaryKey = primaryKey;
        this.newValue = newValue;
        this.newExpireAt = newExpireAt;
        this.prior = prior;
        this.priorExpireAt = priorExpireAt;
        this.secondaries = secondaries;
    }

    /** @return the intent {@code read} holds, read from {@code key}; null when it holds a value. */
    static Intent of(final byte[] key, final Versioned read)
    {
        if (read == null || !KvBlockLayout.isIntent(read.expireAtMillis()))
        {
            return null;
        }
        final byte[] record = read.value();
        if (!IntentLayout.isRecord(record))
        {
            throw new IllegalStateException("key " + KvErrors.describe(key) + " holds a block marked as an intent " +
                "whose " + record.length + " bytes are not an intent record");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(record).order(ByteOrder.BIG_ENDIAN);
        final byte kind = record[IntentLayout.KIND_OFFSET];
        final int flags = record[IntentLayout.FLAGS_OFFSET];
        int at = IntentLayout.HEADER_LENGTH;
        final int primaryLength = buffer.getInt(IntentLayout.PRIMARY_LENGTH_OFFSET);
        final byte[] primaryKey = primaryLength == 0 ? key : Arrays.copyOfRange(record, at, at + primaryLength);
        at += primaryLength;
        final int newLength = buffer.getInt(IntentLayout.NEW_LENGTH_OFFSET);
        final byte[] newValue = (flags & IntentLayout.HAS_NEW) == 0 ? null :
            Arrays.copyOfRange(record, at, at + newLength);
        at += newLength;
        final int priorLength = buffer.getInt(IntentLayout.PRIOR_LENGTH_OFFSET);
        final byte[] prior = (flags & IntentLayout.HAS_PRIOR) == 0 ? null :
            Arrays.copyOfRange(record, at, at + priorLength);
        at += priorLength;
        final boolean parallel = (flags & IntentLayout.PARALLEL) != 0;
        final byte[][] secondaries = new byte[buffer.getInt(IntentLayout.SECONDARIES_OFFSET)][];
        final long[] expected = !parallel ? null : new long[kind == IntentLayout.SECONDARY ? 1 : secondaries.length];
        for (int i = 0; i < secondaries.length; i++)
        {
            final int length = buffer.getInt(at);
            secondaries[i] = Arrays.copyOfRange(record, at + Integer.BYTES, at + Integer.BYTES + length);
            at += Integer.BYTES + length;
            if (parallel)
            {
                expected[i] = buffer.getLong(at);
                at += Long.BYTES;
            }
        }
        if (parallel && kind == IntentLayout.SECONDARY)
        {
            expected[0] = buffer.getLong(at);
        }
        return new Intent(kind, buffer.getLong(IntentLayout.TXN_ID_OFFSET), primaryKey, newValue,
            buffer.getLong(IntentLayout.NEW_EXPIRE_AT_OFFSET), prior,
            buffer.getLong(IntentLayout.PRIOR_EXPIRE_AT_OFFSET), secondaries, expected);
    }

    /** @return whether its transaction commits in parallel: recovered by the write ids its intents name. */
    boolean isParallel()
    {
        return expected != null;
    }

    /** @return a parallel secondary's: the write id its primary's swap expects. */
    long primaryExpected()
    {
        return expected[0];
    }

    /** @return the record with its kind changed: a STAGING record decided COMMITTED. */
    static byte[] decided(final byte[] stagingRecord)
    {
        final byte[] record = stagingRecord.clone();
        record[IntentLayout.KIND_OFFSET] = IntentLayout.PRIMARY_COMMITTED;
        return record;
    }

    boolean isPrimary()
    {
        return kind != IntentLayout.SECONDARY;
    }

    boolean isPending()
    {
        return kind == IntentLayout.PRIMARY_PENDING;
    }

    boolean isStaging()
    {
        return kind == IntentLayout.PRIMARY_STAGING;
    }

    boolean isCommitted()
    {
        return kind == IntentLayout.PRIMARY_COMMITTED;
    }
}

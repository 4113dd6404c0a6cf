package io.dkv.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A transaction's intent on a key: the value of a block whose expireAt is {@link KvBlockLayout#INTENT}, swapped into
 * the key's slot by the single-key write rules (client/README.md, "Transactions"). It holds both the value the
 * transaction writes and the value it replaces, so that whoever meets it can finish or undo the transaction; the
 * transaction's outcome is kept by its primary intent alone.
 *
 * <pre>
 *   0  magic          byte   'I'
 *   1  kind           byte   'P' primary, pending; 'T' primary, staging; 'C' primary, committed; 'S' secondary
 *   2  flags          byte   bit 0: the transaction writes a value (else it deletes the key); bit 1: a prior value;
 *                            bit 2: it commits in parallel (STAGING): write ids follow, below
 *   3  (zero)         byte
 *   4  primaryLength  int    a secondary: its primary's key length; a primary: 0 (the key is its own)
 *   8  txnId          long   drawn at random per transaction, never 0
 *  16  newExpireAt    long   the written value's expiry (KvBlockLayout's epoch milliseconds or NEVER)
 *  24  priorExpireAt  long   the prior value's
 *  32  newLength      int
 *  36  priorLength    int
 *  40  secondaries    int    a committed or staging primary: how many secondary keys follow; else 0
 *  44  (zero)         int
 *  48  primary key    primaryLength bytes
 *  ..  new value      newLength bytes
 *  ..  prior value    priorLength bytes
 *  ..  secondaries    each an int length then the key, then (parallel) the long write id its swap expects
 *  ..  primary's id   a parallel secondary only: the long write id its primary's swap expects
 * </pre>
 *
 * Written by the client only, as a value: the store below it never looks inside (the memory nodes keep it as any
 * value, on disk too). Big-endian, as the rest of the store's layouts.
 */
public final class IntentLayout
{
    public static final byte MAGIC = 'I';
    public static final byte PRIMARY_PENDING = 'P';
    public static final byte PRIMARY_COMMITTED = 'C';
    /** A parallel commit's primary: committed exactly when every intent it lists stands (client/README.md). */
    public static final byte PRIMARY_STAGING = 'T';
    public static final byte SECONDARY = 'S';
    public static final int MAGIC_OFFSET = 0;
    public static final int KIND_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int PRIMARY_LENGTH_OFFSET = 4;
    public static final int TXN_ID_OFFSET = 8;
    public static final int NEW_EXPIRE_AT_OFFSET = 16;
    public static final int PRIOR_EXPIRE_AT_OFFSET = 24;
    public static final int NEW_LENGTH_OFFSET = 32;
    public static final int PRIOR_LENGTH_OFFSET = 36;
    public static final int SECONDARIES_OFFSET = 40;
    public static final int HEADER_LENGTH = 48;
    public static final int HAS_NEW = 1;
    public static final int HAS_PRIOR = 2;
    public static final int PARALLEL = 4;

    private IntentLayout()
    {
    }

    /**
     * @param primaryKey  a secondary's primary key, or null for a primary.
     * @param newValue    the value written, or null: the transaction deletes the key.
     * @param prior       the value replaced, or null: the key had none.
     * @param secondaries a committed primary's secondary keys, or null.
     * @param expected    a parallel commit's write ids, else null: a primary's, one per secondary (the write id its
     *                    swap there expects); a secondary's, one (the write id its primary's swap expects).
     * @return the record's length in bytes.
     */
    public static long length(final byte[] primaryKey, final byte[] newValue, final byte[] prior,
        final byte[][] secondaries, final long[] expected)
    {
        long length = HEADER_LENGTH + lengthOf(primaryKey) + lengthOf(newValue) + lengthOf(prior);
        if (secondaries != null)
        {
            for (final byte[] key : secondaries)
            {
                length += Integer.BYTES + key.length;
            }
        }
        return length + (expected == null ? 0 : (long)Long.BYTES * expected.length);
    }

    /**
     * @param kind {@link #PRIMARY_PENDING}, {@link #PRIMARY_COMMITTED} or {@link #SECONDARY}.
     * @return the record, as a block's value.
     */
    public static byte[] encode(final byte kind, final long txnId, final byte[] primaryKey, final byte[] newValue,
        final long newExpireAt, final byte[] prior, final long priorExpireAt, final byte[][] secondaries)
    {
        return encode(kind, txnId, primaryKey, newValue, newExpireAt, prior, priorExpireAt, secondaries, null);
    }

    /**
     * A record of either protocol.
     *
     * @param kind     {@link #PRIMARY_PENDING}, {@link #PRIMARY_STAGING}, {@link #PRIMARY_COMMITTED} or
     *                 {@link #SECONDARY}.
     * @param expected a parallel commit's write ids (see {@link #length}), or null.
     * @return the record, as a block's value.
     */
    public static byte[] encode(final byte kind, final long txnId, final byte[] primaryKey, final byte[] newValue,
        final long newExpireAt, final byte[] prior, final long priorExpireAt, final byte[][] secondaries,
        final long[] expected)
    {
        final int secondaryCount = secondaries == null ? 0 : secondaries.length;
        if (expected != null && expected.length != (kind == SECONDARY ? 1 : secondaryCount))
        {
            throw new IllegalArgumentException("a parallel commit's " + (kind == SECONDARY ? "secondary names one " +
                "write id" : "primary names a write id per secondary (" + secondaryCount + ")") + ", not " +
                expected.length);
        }
        final long length = length(primaryKey, newValue, prior, secondaries, expected);
        if (length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException("a transaction's intent holds the value written and the value it " +
                "replaces (and a primary its secondary keys) in one block of at most " +
                KvBlockLayout.MAX_VALUE_LENGTH + " bytes; this one needs " + length);
        }
        final ByteBuffer buffer = ByteBuffer.allocate((int)length).order(ByteOrder.BIG_ENDIAN);
        buffer.put(MAGIC).put(kind).put((byte)((newValue != null ? HAS_NEW : 0) | (prior != null ? HAS_PRIOR : 0) |
                (expected != null ? PARALLEL : 0)))
            .put((byte)0)
            .putInt(lengthOf(primaryKey))
            .putLong(txnId)
            .putLong(newExpireAt)
            .putLong(priorExpireAt)
            .putInt(lengthOf(newValue))
            .putInt(lengthOf(prior))
            .putInt(secondaries == null ? 0 : secondaries.length)
            .putInt(0);
        putAll(buffer, primaryKey);
        putAll(buffer, newValue);
        putAll(buffer, prior);
        for (int i = 0; i < secondaryCount; i++)
        {
            buffer.putInt(secondaries[i].length).put(secondaries[i]);
            if (expected != null)
            {
                buffer.putLong(expected[i]);
            }
        }
        if (expected != null && kind == SECONDARY)
        {
            buffer.putLong(expected[0]);
        }
        return buffer.array();
    }

    /** @return true when {@code record} is laid out as this class says (its lengths add up). */
    public static boolean isRecord(final byte[] record)
    {
        if (record.length < HEADER_LENGTH || record[MAGIC_OFFSET] != MAGIC)
        {
            return false;
        }
        final byte kind = record[KIND_OFFSET];
        if (kind != PRIMARY_PENDING && kind != PRIMARY_STAGING && kind != PRIMARY_COMMITTED && kind != SECONDARY)
        {
            return false;
        }
        final boolean parallel = (record[FLAGS_OFFSET] & PARALLEL) != 0;
        final ByteBuffer buffer = ByteBuffer.wrap(record).order(ByteOrder.BIG_ENDIAN);
        final int primaryLength = buffer.getInt(PRIMARY_LENGTH_OFFSET);
        final int newLength = buffer.getInt(NEW_LENGTH_OFFSET);
        final int priorLength = buffer.getInt(PRIOR_LENGTH_OFFSET);
        final int secondaries = buffer.getInt(SECONDARIES_OFFSET);
        if (primaryLength < 0 || newLength < 0 || priorLength < 0 || secondaries < 0)
        {
            return false;
        }
        long at = HEADER_LENGTH + (long)primaryLength + newLength + priorLength;
        for (int i = 0; i < secondaries; i++)
        {
            if (at + Integer.BYTES > record.length || buffer.getInt((int)at) < 0)
            {
                return false;
            }
            at += Integer.BYTES + buffer.getInt((int)at) + (parallel ? Long.BYTES : 0);
        }
        return at + (parallel && kind == SECONDARY ? Long.BYTES : 0) == record.length;
    }

    private static int lengthOf(final byte[] bytes)
    {
        return bytes == null ? 0 : bytes.length;
    }

    private static void putAll(final ByteBuffer buffer, final byte[] bytes)
    {
        if (bytes != null)
        {
            buffer.put(bytes);
        }
    }
}

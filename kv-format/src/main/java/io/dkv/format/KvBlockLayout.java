package io.dkv.format;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * A key and its value as written out of place into the writer's heap chunk, then published by a
 * CAS on an index slot. Never changed once published; the checksum lets a reader tell a whole
 * block from one it read while it was being written or after it was recycled.
 *
 * <pre>
 *   0  keyLength    int
 *   4  valueLength  int
 *   8  expireAt     long   epoch milliseconds from which the block is a miss, or 0: it never expires;
 *                           bits 62..56 the value's kind ({@link ValueKind}; 0: a string)
 *  16  writeId      long   drawn at random per write, the same in each replica's copy of it; never 0
 *  24  epoch        long   the durable epoch of the write's transaction ({@link #NO_EPOCH}: written before epochs)
 *  32  tag          3 bytes "DKE"
 *  35  state        byte    '3': settled; 'P': pending, on its node's disk only once the node clears it
 *  36  checksum     int     CRC32C of bytes 0..31, the key and the value
 *  40  key          keyLength bytes
 *  ..  value        valueLength bytes
 *  ..  padding to a multiple of 64 bytes
 * </pre>
 *
 * The expiry is in the block, not the slot: a block is immutable, so changing a key's expiry is
 * writing a new block and swapping the slot, as any other write (the slot's {@link SlotWord}
 * says only whether the block has one, for the node's scan). The tag changed with the expiry
 * field ("DKVB" before) and with the write id ("DKB2" before): a block of an older layout is never
 * taken as whole. So did it with the epoch ("DKB" before).
 *
 * <p>Why an epoch (kv-memory-node/README.md, "Async across nodes"): under durability async a node's disk lags its
 * memory, each node's by its own amount, and what comes back after every copy is lost must be one moment of the whole
 * store, not a different one per node. A write carries the epoch of its transaction, at least that of every block the
 * transaction read or replaced, so that the nodes can each come back as the writes at or below one epoch they all
 * hold on disk: every transaction whole or absent, none without one whose write it read.
 *
 * <p>Why a state byte: a block is visible to readers the moment its slot's CAS lands, and on its node's disk only
 * once the node has written the key (durability sync: a PERSIST the writer sends after the CAS). A node that dies in
 * between comes back without the value, so a reader that returned it would have seen a value that was then lost. A
 * writer that waits for the disk writes its block pending; the node, once the key's state is on disk, sets the byte
 * to settled (the one byte of a published block that changes, only ever from pending to settled, by its node alone:
 * byte stores are whole, so a read never sees half of it). A reader that meets a pending block asks the node to put
 * the key on disk first (a PERSIST naming the block and its write id) and answers once it has. Blocks of writers that
 * do not wait for the disk (durability async or none) are written settled: their writers accepted that window.
 *
 * <p>A delete is the same hole: a slot emptied is a miss at once and on disk only once the node has written the
 * delete. A delete that waits for the disk publishes a pending {@link #TOMBSTONE} block instead (the key, no value,
 * expired since 1970), which readers settle before they answer the miss, as they settle a pending value.
 *
 * <p>Why a write id: with replication each replica's slot names a block in that node's own heap, so
 * slot words cannot be compared across replicas; the write id can. Two writes of a key draw the
 * same id with probability 2^-64.
 */
public final class KvBlockLayout
{
    public static final int KEY_LENGTH_OFFSET = 0;
    public static final int VALUE_LENGTH_OFFSET = 4;
    public static final int EXPIRE_AT_OFFSET = 8;
    public static final int WRITE_ID_OFFSET = 16;
    public static final int EPOCH_OFFSET = 24;
    public static final int CHECKSUM_OFFSET = 32;
    /** The state byte, the last of the tag (big-endian: byte 3 of the word at {@link #CHECKSUM_OFFSET}). */
    public static final int STATE_OFFSET = 35;
    public static final byte SETTLED = '3';
    public static final byte PENDING = 'P';
    public static final int HEADER_LENGTH = 40;
    /** The epoch of a block written before epochs were kept (a node's disk of format 3, loaded). */
    public static final long NO_EPOCH = 0;
    /** The write id no write has: a slot that names no block, or a key with no value. */
    public static final long NO_WRITE = 0;
    /** The expireAt of a block that never expires. */
    public static final long NEVER = 0;
    /**
     * The expireAt of a tombstone: a block with the key and no value, expired on any clock, that a delete under
     * durability sync publishes in place of an empty slot. Written pending, it makes a reader of the miss ask the node
     * to put the delete on disk first, as a pending value does; settled, it is a miss like any expired block, and the
     * node's expiry scan empties its slot.
     */
    public static final long TOMBSTONE = 1;
    /**
     * The expireAt of a transaction's intent ({@link IntentLayout}, client/README.md, "Transactions"): a block whose
     * value is an intent record, not the key's value. No clock reaches it and no user's expiry is negative, so every
     * part of the store below the client (replication, refill, the nodes' scans and disks) keeps an intent as a value
     * that never expires; only the client reads its record.
     */
    public static final long INTENT = Long.MIN_VALUE;
    public static final int MAX_KEY_LENGTH = 64 * 1024;
    public static final int MAX_VALUE_LENGTH = 1024 * 1024;
    private static final long CHECKSUM_TAG = 0x444b4533L << 32;
    private static final long STATE_SHIFT = 32;
    private static final long STATE_MASK = 0xffL << STATE_SHIFT;
    /** Every block read is checked: one checksum object per thread rather than one per block. */
    private static final ThreadLocal<CRC32C> CRC = ThreadLocal.withInitial(CRC32C::new);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private KvBlockLayout()
    {
    }

    /** @return bytes of the block, a multiple of 64. */
    public static int blockLength(final int keyLength, final int valueLength)
    {
        return (HEADER_LENGTH + keyLength + valueLength + SlotWord.UNIT - 1) & ~(SlotWord.UNIT - 1);
    }

    /** Write a whole settled block at {@code offset} of {@code buffer}. */
    public static void write(final MemorySegment buffer, final long offset, final byte[] key, final byte[] value,
        final long expireAt, final long writeId, final long epoch)
    {
        write(buffer, offset, key, MemorySegment.ofArray(value), expireAt, writeId, epoch, false);
    }

    /** Write a whole block at {@code offset} of {@code buffer}, pending or settled. */
    public static void write(final MemorySegment buffer, final long offset, final byte[] key, final byte[] value,
        final long expireAt, final long writeId, final long epoch, final boolean pending)
    {
        write(buffer, offset, key, MemorySegment.ofArray(value), expireAt, writeId, epoch, pending);
    }

    /**
     * Write a whole block whose value comes from memory (no copy of it on the heap).
     *
     * @param expireAt epoch milliseconds from which the key has no value, or {@link #NEVER}.
     * @param writeId  the write's identity, not {@link #NO_WRITE}: the same in each replica's copy.
     * @param epoch    the durable epoch of the write's transaction, the same in each replica's copy.
     * @param pending  true: readers ask its node to put it on disk before they answer it (the writer waits for the
     *                 disk); false: settled.
     */
    public static void write(final MemorySegment buffer, final long offset, final byte[] key,
        final MemorySegment value, final long expireAt, final long writeId, final long epoch, final boolean pending)
    {
        if (writeId == NO_WRITE)
        {
            throw new IllegalArgumentException("write id 0 names no write");
        }
        final int valueLength = (int)value.byteSize();
        buffer.set(INT, offset + KEY_LENGTH_OFFSET, key.length);
        buffer.set(INT, offset + VALUE_LENGTH_OFFSET, valueLength);
        buffer.set(LONG, offset + EXPIRE_AT_OFFSET, expireAt);
        buffer.set(LONG, offset + WRITE_ID_OFFSET, writeId);
        buffer.set(LONG, offset + EPOCH_OFFSET, epoch);
        MemorySegment.copy(key, 0, buffer, ValueLayout.JAVA_BYTE, offset + HEADER_LENGTH, key.length);
        MemorySegment.copy(value, 0, buffer, offset + HEADER_LENGTH + key.length, valueLength);
        buffer.set(LONG, offset + CHECKSUM_OFFSET, checksum(buffer, offset, key.length, valueLength));
        if (pending)
        {
            buffer.set(ValueLayout.JAVA_BYTE, offset + STATE_OFFSET, PENDING);
        }
    }

    /** @return true when the (whole) block is pending: its node may not have its key on disk yet. */
    public static boolean isPending(final MemorySegment buffer, final long offset)
    {
        return buffer.get(ValueLayout.JAVA_BYTE, offset + STATE_OFFSET) == PENDING;
    }

    /** Mark the block settled: its node has the key's state on disk (the node's own store, one byte). */
    public static void settle(final MemorySegment buffer, final long offset)
    {
        buffer.set(ValueLayout.JAVA_BYTE, offset + STATE_OFFSET, SETTLED);
    }

    /**
     * Copy the (whole) block's value into {@code dst}, as much of it as fits.
     *
     * @return the value's length.
     */
    public static int copyValue(final MemorySegment buffer, final long offset, final MemorySegment dst)
    {
        final int valueLength = valueLength(buffer, offset);
        MemorySegment.copy(buffer, offset + HEADER_LENGTH + keyLength(buffer, offset), dst, 0,
            Math.min(valueLength, dst.byteSize()));
        return valueLength;
    }

    public static int keyLength(final MemorySegment buffer, final long offset)
    {
        return buffer.get(INT, offset + KEY_LENGTH_OFFSET);
    }

    public static int valueLength(final MemorySegment buffer, final long offset)
    {
        return buffer.get(INT, offset + VALUE_LENGTH_OFFSET);
    }

    /** @return epoch milliseconds from which the block is a miss, or {@link #NEVER}. */
    public static long expireAt(final MemorySegment buffer, final long offset)
    {
        return buffer.get(LONG, offset + EXPIRE_AT_OFFSET);
    }

    /**
     * @return a new write's id: random, never {@link #NO_WRITE}, and its low 48 bits (what a notice names a replaced
     * version by, {@link PersistRingLayout#PREVIOUS_MASK}) never all zeros, which a notice's "none" is.
     */
    public static long drawWriteId()
    {
        long id;
        do
        {
            id = ThreadLocalRandom.current().nextLong();
        }
        while ((id & PersistRingLayout.PREVIOUS_MASK) == 0);
        return id;
    }

    /** @return the write the block holds: the same id in every replica's copy of one write. */
    public static long writeId(final MemorySegment buffer, final long offset)
    {
        return buffer.get(LONG, offset + WRITE_ID_OFFSET);
    }

    /** @return the durable epoch of the write the block holds ({@link #NO_EPOCH}: written before epochs). */
    public static long epoch(final MemorySegment buffer, final long offset)
    {
        return buffer.get(LONG, offset + EPOCH_OFFSET);
    }

    /**
     * @return true when a block of this expireAt is a miss at {@code nowMillis} (redis: expired once now reaches it).
     */
    public static boolean isExpired(final long expireAt, final long nowMillis)
    {
        final long expiry = ValueKind.expiryOf(expireAt);
        return expiry != NEVER && expiry != INTENT && expiry <= nowMillis;
    }

    /** @return true when a block of this expireAt holds a transaction's intent record ({@link #INTENT}). */
    public static boolean isIntent(final long expireAt)
    {
        return expireAt == INTENT;
    }

    /**
     * @param available bytes of the block in the buffer.
     * @return true when the block's lengths fit {@code available} and its checksum matches.
     */
    public static boolean isWhole(final MemorySegment buffer, final long offset, final int available)
    {
        if (available < HEADER_LENGTH)
        {
            return false;
        }
        final int keyLength = keyLength(buffer, offset);
        final int valueLength = valueLength(buffer, offset);
        if (keyLength <= 0 || keyLength > MAX_KEY_LENGTH || valueLength < 0 || valueLength > MAX_VALUE_LENGTH ||
            HEADER_LENGTH + (long)keyLength + valueLength > available)
        {
            return false;
        }
        final long word = buffer.get(LONG, offset + CHECKSUM_OFFSET);
        final long state = (word & STATE_MASK) >>> STATE_SHIFT;
        return (state == SETTLED || state == PENDING) &&
            (word & ~STATE_MASK) == (checksum(buffer, offset, keyLength, valueLength) & ~STATE_MASK);
    }

    /**
     * Whether the first bytes of a block read (its header, without the key and value the checksum also covers) are a
     * block's header of {@code blockLength} bytes: its tag, a state, and lengths that make that length. A scan that
     * learns keys from headers alone checks this, where a reader of values checks {@link #isWhole}.
     */
    public static boolean headerFits(final MemorySegment buffer, final long offset, final int blockLength)
    {
        final int keyLength = keyLength(buffer, offset);
        final int valueLength = valueLength(buffer, offset);
        if (keyLength <= 0 || keyLength > MAX_KEY_LENGTH || valueLength < 0 || valueLength > MAX_VALUE_LENGTH ||
            blockLength(keyLength, valueLength) != blockLength)
        {
            return false;
        }
        final long word = buffer.get(LONG, offset + CHECKSUM_OFFSET);
        final long state = (word & STATE_MASK) >>> STATE_SHIFT;
        return (state == SETTLED || state == PENDING) && (word >>> 40) == CHECKSUM_TAG >>> 40;
    }

    /** @return true when the (whole) block holds {@code key}. */
    /** @return whether the block at {@code offset} is of the key at {@code keyOffset} in {@code keys}. */
    public static boolean hasKey(final MemorySegment buffer, final long offset, final MemorySegment keys,
        final long keyOffset, final int keyLength)
    {
        return keyLength(buffer, offset) == keyLength && MemorySegment.mismatch(buffer, offset + HEADER_LENGTH,
            offset + HEADER_LENGTH + keyLength, keys, keyOffset, keyOffset + keyLength) == -1;
    }

    public static boolean hasKey(final MemorySegment buffer, final long offset, final byte[] key)
    {
        if (keyLength(buffer, offset) != key.length)
        {
            return false;
        }
        return MemorySegment.mismatch(buffer, offset + HEADER_LENGTH, offset + HEADER_LENGTH + key.length,
            MemorySegment.ofArray(key), 0, key.length) == -1;
    }

    public static byte[] value(final MemorySegment buffer, final long offset)
    {
        final int keyLength = keyLength(buffer, offset);
        final int valueLength = valueLength(buffer, offset);
        final byte[] value = new byte[valueLength];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset + HEADER_LENGTH + keyLength, value, 0, valueLength);
        return value;
    }

    /** @return true when the (whole) block's value equals {@code expected}. */
    public static boolean hasValue(final MemorySegment buffer, final long offset, final byte[] expected)
    {
        final int keyLength = keyLength(buffer, offset);
        if (valueLength(buffer, offset) != expected.length)
        {
            return false;
        }
        final long start = offset + HEADER_LENGTH + keyLength;
        return MemorySegment.mismatch(buffer, start, start + expected.length, MemorySegment.ofArray(expected), 0,
            expected.length) == -1;
    }

    private static long checksum(final MemorySegment buffer, final long offset, final int keyLength,
        final int valueLength)
    {
        final CRC32C crc = CRC.get();
        crc.reset();
        crc.update(buffer.asSlice(offset, CHECKSUM_OFFSET).asByteBuffer());
        crc.update(buffer.asSlice(offset + HEADER_LENGTH, (long)keyLength + valueLength).asByteBuffer());
        return CHECKSUM_TAG | crc.getValue();
    }
}

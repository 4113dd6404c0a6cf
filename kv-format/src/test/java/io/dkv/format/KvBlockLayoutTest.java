package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A block carries its key, value, expiry, write id and durable epoch whole, and its checksum (over the header too)
 * tells a whole block from a damaged one; a pending block differs from a settled one by its state byte alone.
 */
class KvBlockLayoutTest
{
    private static final byte[] KEY = "user:42".getBytes(StandardCharsets.UTF_8);
    private static final byte[] VALUE = "a value of some length".getBytes(StandardCharsets.UTF_8);
    private static final long EXPIRE_AT = 1_767_225_600_000L;
    private static final long WRITE_ID = 0x0123_4567_89ab_cdefL;
    private static final long EPOCH = 35_344_512_000L;

    @Test
    void aWrittenBlockIsWholeAndHoldsItsKeyAndValue()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int length = KvBlockLayout.blockLength(KEY.length, VALUE.length);
            assertEquals(128, length, "40 bytes of header and 29 of key and value");
            final MemorySegment buffer = arena.allocate(length + 64);
            KvBlockLayout.write(buffer, 64, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH);
            assertTrue(KvBlockLayout.isWhole(buffer, 64, length));
            assertEquals(EXPIRE_AT, KvBlockLayout.expireAt(buffer, 64));
            assertEquals(WRITE_ID, KvBlockLayout.writeId(buffer, 64), "the write id, the same in every replica's copy");
            assertEquals(EPOCH, KvBlockLayout.epoch(buffer, 64), "the durable epoch, the same in every replica's copy");
            assertTrue(KvBlockLayout.hasKey(buffer, 64, KEY));
            assertFalse(KvBlockLayout.hasKey(buffer, 64, "user:43".getBytes(StandardCharsets.UTF_8)));
            assertArrayEquals(VALUE, KvBlockLayout.value(buffer, 64));
            assertTrue(KvBlockLayout.hasValue(buffer, 64, VALUE));
            assertFalse(KvBlockLayout.hasValue(buffer, 64, KEY));
        }
    }

    @Test
    void anyChangedByteOrAShortReadBreaksTheBlock()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int length = KvBlockLayout.blockLength(KEY.length, VALUE.length);
            final MemorySegment buffer = arena.allocate(length);
            for (int at = 0; at < KvBlockLayout.HEADER_LENGTH + KEY.length + VALUE.length; at++)
            {
                KvBlockLayout.write(buffer, 0, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH);
                buffer.set(ValueLayout.JAVA_BYTE, at, (byte)(buffer.get(ValueLayout.JAVA_BYTE, at) ^ 0x10));
                assertFalse(KvBlockLayout.isWhole(buffer, 0, length), "byte " + at + " changed");
            }
            KvBlockLayout.write(buffer, 0, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH);
            assertFalse(KvBlockLayout.isWhole(buffer, 0, 20), "fewer bytes than the block says it has");
            assertFalse(KvBlockLayout.isWhole(MemorySegment.ofArray(new byte[64]), 0, 64), "zeroes are no block");
        }
    }

    @Test
    void aPendingBlockIsWholeAndItsNodeSettlesItByOneByte()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int length = KvBlockLayout.blockLength(KEY.length, VALUE.length);
            final MemorySegment pending = arena.allocate(length);
            final MemorySegment settled = arena.allocate(length);
            KvBlockLayout.write(pending, 0, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH, true);
            KvBlockLayout.write(settled, 0, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH, false);
            assertTrue(KvBlockLayout.isWhole(pending, 0, length));
            assertTrue(KvBlockLayout.isPending(pending, 0));
            assertFalse(KvBlockLayout.isPending(settled, 0));
            assertEquals(1, countDifferences(pending, settled, length), "the state byte alone differs");

            KvBlockLayout.settle(pending, 0);
            assertFalse(KvBlockLayout.isPending(pending, 0));
            assertTrue(KvBlockLayout.isWhole(pending, 0, length));
            assertEquals(-1, MemorySegment.mismatch(pending, 0, length, settled, 0, length));
        }
    }

    private static int countDifferences(final MemorySegment a, final MemorySegment b, final int length)
    {
        int differences = 0;
        for (int i = 0; i < length; i++)
        {
            if (a.get(ValueLayout.JAVA_BYTE, i) != b.get(ValueLayout.JAVA_BYTE, i))
            {
                differences++;
            }
        }
        return differences;
    }

    /**
     * A block of the layout before epochs (tag "DKB2": the write id where the epoch is now, the checksum word 8 bytes
     * earlier) is never taken as whole: its tag is not this layout's.
     */
    @Test
    void aBlockOfTheLayoutBeforeEpochsIsNeverWhole()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int length = KvBlockLayout.blockLength(KEY.length, VALUE.length);
            final MemorySegment buffer = arena.allocate(length);
            KvBlockLayout.write(buffer, 0, KEY, VALUE, EXPIRE_AT, WRITE_ID, EPOCH);
            assertTrue(KvBlockLayout.isWhole(buffer, 0, length));
            // "DKB3" for "DKE3": the tag alone, with a checksum matching the rest
            buffer.set(ValueLayout.JAVA_BYTE, KvBlockLayout.CHECKSUM_OFFSET + 2, (byte)'B');
            assertFalse(KvBlockLayout.isWhole(buffer, 0, length));
            assertFalse(KvBlockLayout.headerFits(buffer, 0, length));
        }
    }

    @Test
    void writeIdZeroNamesNoWriteAndIsRefused()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment buffer = arena.allocate(64);
            final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class,
                () -> KvBlockLayout.write(buffer, 0, KEY, VALUE, EXPIRE_AT, KvBlockLayout.NO_WRITE, EPOCH));
            assertTrue(thrown.getMessage().contains("write id 0"), thrown.getMessage());
        }
    }

    @Test
    void blocksAreWholeUnitsOf64Bytes()
    {
        assertEquals(64, KvBlockLayout.blockLength(1, 0));
        assertEquals(64, KvBlockLayout.blockLength(1, 23));
        assertEquals(128, KvBlockLayout.blockLength(1, 24));
    }

    @Test
    void aBlockExpiresWhenTheClockReachesItsTimeAndNeverWithoutOne()
    {
        assertFalse(KvBlockLayout.isExpired(EXPIRE_AT, EXPIRE_AT - 1));
        assertTrue(KvBlockLayout.isExpired(EXPIRE_AT, EXPIRE_AT));
        assertFalse(KvBlockLayout.isExpired(KvBlockLayout.NEVER, Long.MAX_VALUE));
    }
}

package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A persist ring's entry names its block, whether it ends its group, and its lap at both ends: an entry is whole and
 * of the lap expected, never a zeroed slot, the previous lap's, or one read while its WRITE was half done.
 */
class PersistRingLayoutTest
{
    private static final int ENTRIES = PersistRingLayout.entries(PersistRingLayout.RING_LENGTH);

    @Test
    void anEntryGivesBackItsBlockAtItsPositionOnly()
    {
        assertEquals((PersistRingLayout.RING_LENGTH - 64) / 8, ENTRIES);
        final long largest = (1L << 53) - 64;
        for (final long block : new long[] {64, 64 * 12345, largest})
        {
            final long entry = PersistRingLayout.entry(ENTRIES + 7, ENTRIES, block, false);
            assertTrue(PersistRingLayout.isEntry(entry, ENTRIES + 7, ENTRIES));
            assertEquals(block, PersistRingLayout.blockOffset(entry));
            assertFalse(PersistRingLayout.isLast(entry));
            final long last = PersistRingLayout.entry(ENTRIES + 7, ENTRIES, block, true);
            assertTrue(PersistRingLayout.isEntry(last, ENTRIES + 7, ENTRIES));
            assertTrue(PersistRingLayout.isLast(last), "ends its group");
            assertEquals(block, PersistRingLayout.blockOffset(last));
            assertFalse(PersistRingLayout.isEntry(entry, 7, ENTRIES), "the lap before writes the same slot");
            assertFalse(PersistRingLayout.isEntry(entry, 2L * ENTRIES + 7, ENTRIES), "the lap after too");
        }
        assertFalse(PersistRingLayout.isEntry(0, 0, ENTRIES), "a zeroed slot holds no entry");
        assertEquals(PersistRingLayout.HEADER_LENGTH + 7 * 8, PersistRingLayout.entryOffset(ENTRIES + 7, ENTRIES));
    }

    @Test
    void eachOfAHundredAndTwentyEightLapsTagsItsEntriesApartFromTheLastOnes()
    {
        for (long lap = 1; lap < 1000; lap++)
        {
            assertNotEquals(PersistRingLayout.tag((lap - 1) * ENTRIES, ENTRIES), PersistRingLayout.tag(lap * ENTRIES,
                ENTRIES));
        }
        assertEquals(PersistRingLayout.tag(0, ENTRIES), PersistRingLayout.tag(128L * ENTRIES, ENTRIES));
    }

    /** Bytes copied in order, up or down: every state of the slot between the old entry and the new one. */
    @Test
    void aSlotReadWhileItsWriteIsHalfDoneIsNoEntry()
    {
        final long position = 3L * ENTRIES + 11;
        final long previous = PersistRingLayout.entry(position - ENTRIES, ENTRIES, 64 * 999, true);
        final long next = PersistRingLayout.entry(position, ENTRIES, 64 * 1001, true);
        for (final long before : new long[] {0, previous})
        {
            final byte[] old = ByteBuffer.allocate(8).putLong(before).array();
            final byte[] now = ByteBuffer.allocate(8).putLong(next).array();
            for (int written = 0; written < 8; written++)
            {
                final byte[] upward = old.clone();
                final byte[] downward = old.clone();
                System.arraycopy(now, 0, upward, 0, written);
                System.arraycopy(now, 8 - written, downward, 8 - written, written);
                assertFalse(PersistRingLayout.isEntry(ByteBuffer.wrap(upward).getLong(), position, ENTRIES),
                    written + " bytes written upward over " + Long.toHexString(before));
                assertFalse(PersistRingLayout.isEntry(ByteBuffer.wrap(downward).getLong(), position, ENTRIES),
                    written + " bytes written downward over " + Long.toHexString(before));
            }
        }
        assertTrue(PersistRingLayout.isEntry(next, position, ENTRIES));
    }
}

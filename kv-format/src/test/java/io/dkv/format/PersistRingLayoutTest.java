package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A persist ring's entry names its block, whether it ends its group, the write id of the version its write replaced,
 * and its lap at both ends of each word: an entry is whole and of the lap expected, never a zeroed slot, the previous
 * lap's, or one read while its WRITE was half done.
 */
class PersistRingLayoutTest
{
    private static final int ENTRIES = PersistRingLayout.entries(PersistRingLayout.RING_LENGTH);

    @Test
    void anEntryGivesBackItsBlockAndItsPreviousWriteAtItsPositionOnly()
    {
        assertEquals((PersistRingLayout.RING_LENGTH - 64) / 16, ENTRIES);
        final long largest = (1L << 53) - 64;
        final long position = ENTRIES + 7;
        for (final long block : new long[] {64, 64 * 12345, largest})
        {
            for (final long replaced : new long[] {KvBlockLayout.NO_WRITE, 1, -1L, 0x1234_5678_9abc_def0L})
            {
                final long entry = PersistRingLayout.entry(position, ENTRIES, block, false);
                final long previous = PersistRingLayout.previous(position, ENTRIES, replaced);
                assertTrue(PersistRingLayout.isEntry(entry, previous, position, ENTRIES));
                assertEquals(block, PersistRingLayout.blockOffset(entry));
                assertEquals(replaced & PersistRingLayout.PREVIOUS_MASK, PersistRingLayout.previousWriteId(previous));
                assertFalse(PersistRingLayout.isLast(entry));
                final long last = PersistRingLayout.entry(position, ENTRIES, block, true);
                assertTrue(PersistRingLayout.isEntry(last, previous, position, ENTRIES));
                assertTrue(PersistRingLayout.isLast(last), "ends its group");
                assertEquals(block, PersistRingLayout.blockOffset(last));
                assertFalse(PersistRingLayout.isEntry(entry, previous, 7, ENTRIES),
                    "the lap before writes the same slot");
                assertFalse(PersistRingLayout.isEntry(entry, previous, 2L * ENTRIES + 7, ENTRIES), "the lap after too");
                assertFalse(PersistRingLayout.isEntry(entry, PersistRingLayout.previous(7, ENTRIES, replaced),
                    position, ENTRIES), "a second word of the lap before");
            }
        }
        assertFalse(PersistRingLayout.isEntry(0, 0, 0, ENTRIES), "a zeroed slot holds no entry");
        assertEquals(PersistRingLayout.HEADER_LENGTH + 7 * 16, PersistRingLayout.entryOffset(ENTRIES + 7, ENTRIES));
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
        final byte[] lapBefore = ByteBuffer.allocate(16)
            .putLong(PersistRingLayout.entry(position - ENTRIES, ENTRIES, 64 * 999, true))
            .putLong(PersistRingLayout.previous(position - ENTRIES, ENTRIES, 0x77_7777_7777L)).array();
        final byte[] now = ByteBuffer.allocate(16)
            .putLong(PersistRingLayout.entry(position, ENTRIES, 64 * 1001, true))
            .putLong(PersistRingLayout.previous(position, ENTRIES, 0x55_5555_5555L)).array();
        for (final byte[] old : new byte[][] {new byte[16], lapBefore})
        {
            for (int written = 0; written < 16; written++)
            {
                final byte[] upward = old.clone();
                final byte[] downward = old.clone();
                System.arraycopy(now, 0, upward, 0, written);
                System.arraycopy(now, 16 - written, downward, 16 - written, written);
                assertFalse(whole(upward, position), written + " bytes written upward");
                assertFalse(whole(downward, position), written + " bytes written downward");
            }
            for (int word = 0; word < 2; word++)
            {
                final byte[] oneWord = old.clone();
                System.arraycopy(now, word * 8, oneWord, word * 8, 8);
                assertFalse(whole(oneWord, position), "word " + word + " alone written");
            }
        }
        assertTrue(whole(now, position));
    }

    private static boolean whole(final byte[] slot, final long position)
    {
        final ByteBuffer words = ByteBuffer.wrap(slot);
        return PersistRingLayout.isEntry(words.getLong(0), words.getLong(8), position, ENTRIES);
    }
}

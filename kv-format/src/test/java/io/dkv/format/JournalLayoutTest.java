package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A journal names its time and segment count, and whether its segments are being removed; one of 12 bytes is not. */
class JournalLayoutTest
{
    @Test
    void aJournalKeepsItsTimeCountAndClaim()
    {
        final byte[] journal = JournalLayout.encode(1_700_000_000_123L, 1024, 0);
        assertTrue(JournalLayout.isJournal(journal));
        assertEquals(1_700_000_000_123L, JournalLayout.time(journal));
        assertEquals(1024, JournalLayout.count(journal));
        assertFalse(JournalLayout.claimed(journal));

        final byte[] claimed = JournalLayout.claim(journal);
        assertTrue(JournalLayout.claimed(claimed));
        assertEquals(1_700_000_000_123L, JournalLayout.time(claimed));
        assertEquals(1024, JournalLayout.count(claimed));
    }

    @Test
    void aJournalWrittenBeforeFlagsIsUnclaimedAndAnythingElseIsNoJournal()
    {
        final byte[] unflagged = ByteBuffer.allocate(JournalLayout.LENGTH_UNFLAGGED).putLong(5L).putInt(7).array();
        assertTrue(JournalLayout.isJournal(unflagged));
        assertFalse(JournalLayout.claimed(unflagged));
        assertEquals(5L, JournalLayout.time(unflagged));
        assertEquals(7, JournalLayout.count(unflagged));
        assertFalse(JournalLayout.isJournal(new byte[13]));
        assertFalse(JournalLayout.isJournal(null));
    }
}

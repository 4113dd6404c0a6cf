package io.dkv.client.layout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The 8-byte slot keeps fingerprint, state, length and block apart, and is never zero unless empty.
 */
class SlotWordTest
{
    @Test
    void aCommittedSlotGivesBackWhatWentIn()
    {
        final long word = SlotWord.committed(0xab, 64 * 1000, 100);
        assertTrue(SlotWord.isCommitted(word));
        assertFalse(SlotWord.isEmpty(word));
        assertEquals(0xab, SlotWord.fingerprint(word));
        assertEquals(64 * 1000, SlotWord.blockOffset(word));
        assertEquals(128, SlotWord.lengthHint(word), "100 bytes round up to two 64-byte units");
    }

    @Test
    void theExpiresBitIsKeptApartFromTheBlock()
    {
        final long largest = 64 * ((1L << 47) - 1);
        final long word = SlotWord.committed(0xff, largest, 64, true);
        assertTrue(SlotWord.expires(word));
        assertEquals(largest, SlotWord.blockOffset(word));
        assertFalse(SlotWord.expires(SlotWord.committed(0xff, largest, 64)));
        assertTrue(SlotWord.expires(SlotWord.tentative(word)));
        assertThrows(IllegalArgumentException.class, () -> SlotWord.committed(1, 64L << 47, 64, false));
    }

    @Test
    void theTentativeFormDiffersOnlyInTheCommittedBit()
    {
        final long committed = SlotWord.committed(7, 64, 64);
        final long tentative = SlotWord.tentative(committed);
        assertFalse(SlotWord.isCommitted(tentative));
        assertNotEquals(committed, tentative);
        assertEquals(committed, SlotWord.commit(tentative));
        assertEquals(SlotWord.fingerprint(committed), SlotWord.fingerprint(tentative));
        assertEquals(SlotWord.blockOffset(committed), SlotWord.blockOffset(tentative));
    }

    @Test
    void aTentativeSlotWithFingerprintZeroIsStillNotEmpty()
    {
        final long tentative = SlotWord.tentative(SlotWord.committed(0, 64, 20_000));
        assertFalse(SlotWord.isEmpty(tentative));
        assertEquals(0, SlotWord.lengthHint(tentative), "blocks past 127 units say nothing of their length");
    }

    @Test
    void blocksMustBeAlignedHeapOffsetsPastTheHeader()
    {
        assertThrows(IllegalArgumentException.class, () -> SlotWord.committed(1, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> SlotWord.committed(1, 100, 64));
        assertThrows(IllegalArgumentException.class, () -> SlotWord.committed(1, 1L << 60, 64));
    }
}

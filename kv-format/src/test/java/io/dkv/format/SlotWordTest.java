package io.dkv.format;

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
    void theExpiresBitAndTheGenerationAreKeptApartFromTheBlock()
    {
        final long largest = SlotWord.MAX_HEAP_BYTES - SlotWord.UNIT;
        final long word = SlotWord.committed(0xff, largest, 64, true, 255);
        assertTrue(SlotWord.expires(word));
        assertEquals(largest, SlotWord.blockOffset(word));
        assertEquals(255, SlotWord.generation(word));
        assertEquals(0xff, SlotWord.fingerprint(word));
        assertEquals(64, SlotWord.lengthHint(word));
        assertFalse(SlotWord.expires(SlotWord.committed(0xff, largest, 64)));
        assertEquals(0, SlotWord.generation(SlotWord.committed(0xff, largest, 64)));
        assertTrue(SlotWord.expires(SlotWord.tentative(word)));
        assertEquals(255, SlotWord.generation(SlotWord.tentative(word)));
        assertThrows(IllegalArgumentException.class,
            () -> SlotWord.committed(1, SlotWord.MAX_HEAP_BYTES, 64, false, 0));
    }

    @Test
    void aSealedWordNamesTheSameBlockAndIsAnotherWord()
    {
        final long largest = SlotWord.MAX_HEAP_BYTES - SlotWord.UNIT;
        final long word = SlotWord.committed(0xff, largest, 64, true, 255);
        final long sealed = SlotWord.sealed(word);
        assertNotEquals(word, sealed, "a CAS expecting the word unsealed fails on it sealed");
        assertTrue(SlotWord.isSealed(sealed));
        assertFalse(SlotWord.isSealed(word));
        assertEquals(largest, SlotWord.blockOffset(sealed));
        assertEquals(255, SlotWord.generation(sealed));
        assertEquals(64, SlotWord.lengthHint(sealed));
        assertTrue(SlotWord.isCommitted(sealed) && SlotWord.expires(sealed));
        assertEquals(word, SlotWord.unsealed(sealed));
        assertEquals(sealed, SlotWord.commit(SlotWord.tentative(sealed)), "an insert keeps its seal");
        assertEquals(16L << 40, SlotWord.MAX_HEAP_BYTES, "blocks lie in the first 16 TiB");
    }

    @Test
    void aBlockAtTheSameOffsetInALaterLifeOfItsChunkHasAnotherWord()
    {
        final long first = SlotWord.committed(0x5a, 64 * 77, 900, false, 3);
        final long later = SlotWord.committed(0x5a, 64 * 77, 900, false, SlotWord.nextGeneration(3));
        assertNotEquals(first, later, "a CAS expecting the first word cannot land on the later one");
        assertEquals(SlotWord.blockOffset(first), SlotWord.blockOffset(later));
        assertEquals(4, SlotWord.generation(later));
        assertEquals(0, SlotWord.nextGeneration(255), "generations wrap around after 256 lives");
        assertEquals(SlotWord.committed(1, 64, 64, false, 1), SlotWord.committed(1, 64, 64, false, 257),
            "taken modulo 256");
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

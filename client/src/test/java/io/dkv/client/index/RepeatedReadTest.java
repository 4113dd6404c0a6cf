package io.dkv.client.index;

import io.dkv.format.SlotWord;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A miss is confirmed by two reads in a row of the same words, and by nothing less. */
class RepeatedReadTest
{
    private static final long A = SlotWord.committed(0x11, 64, 100);
    private static final long B = SlotWord.committed(0x22, 128, 100);

    @Test
    void theFirstReadConfirmsNothingAndAnEqualSecondOneDoes()
    {
        final RepeatedRead read = new RepeatedRead();
        final long[] words = {A, SlotWord.EMPTY, B};
        assertFalse(read.confirms(words, 3));
        assertTrue(read.confirms(words.clone(), 3));
    }

    @Test
    void aWordThatChangedBetweenTheReadsConfirmsNothingUntilTheNextEqualRead()
    {
        final RepeatedRead read = new RepeatedRead();
        assertFalse(read.confirms(new long[] {A, SlotWord.EMPTY}, 2));
        assertFalse(read.confirms(new long[] {A, B}, 2), "a racing insert");
        assertTrue(read.confirms(new long[] {A, B}, 2));
    }

    @Test
    void readsOfAnotherNumberOfSlotsDiffer()
    {
        final RepeatedRead read = new RepeatedRead();
        assertFalse(read.confirms(new long[] {A, B, SlotWord.EMPTY}, 3));
        assertFalse(read.confirms(new long[] {A, B, SlotWord.EMPTY}, 2), "a split moved the candidates");
    }

    @Test
    void forgettingStartsAfresh()
    {
        final RepeatedRead read = new RepeatedRead();
        final long[] words = {A};
        assertFalse(read.confirms(words, 1));
        read.forget();
        assertFalse(read.confirms(words, 1), "a read after a write's CAS confirms nothing of before");
        assertTrue(read.confirms(words, 1));
    }
}

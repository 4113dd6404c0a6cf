package io.dkv.client.index;

import io.dkv.format.SlotWord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.dkv.client.index.IndexDecisions.INSERT_CLEARED;
import static io.dkv.client.index.IndexDecisions.INSERT_COMMIT;
import static io.dkv.client.index.IndexDecisions.INSERT_COMMITTED_SEEN;
import static io.dkv.client.index.IndexDecisions.INSERT_MOVED;
import static io.dkv.client.index.IndexDecisions.INSERT_YIELD;
import static io.dkv.client.index.IndexDecisions.NONE;
import static io.dkv.client.index.IndexDecisions.SEVERAL;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The index protocol's decisions over hand-made candidate words, slot 0 lowest in address order. */
class IndexDecisionsTest
{
    private static final int KEY = 0x2a;
    private static final int OTHER = 0x17;
    private static final long E = SlotWord.EMPTY;

    private static long committed(final int fingerprint, final int block)
    {
        return SlotWord.committed(fingerprint, 64L * block, 100);
    }

    private static long tentative(final int fingerprint, final int block)
    {
        return SlotWord.tentative(committed(fingerprint, block));
    }

    private static int mask(final int... slots)
    {
        int mask = 0;
        for (final int slot : slots)
        {
            mask |= 1 << slot;
        }
        return mask;
    }

    @Test
    void aSlotMayBeTheKeysOnlyWhenItHoldsAWordOfItsFingerprint()
    {
        final long[] words = {E, committed(OTHER, 1), tentative(KEY, 2), committed(KEY, 3), E, committed(KEY, 5)};
        assertEquals(mask(2, 3, 5), IndexDecisions.ofFingerprint(words, words.length, KEY));
        assertEquals(mask(2, 3), IndexDecisions.ofFingerprint(words, 4, KEY), "only the first count slots are read");
        assertEquals(mask(1), IndexDecisions.ofFingerprint(words, words.length, OTHER));
        assertEquals(0, IndexDecisions.ofFingerprint(words, words.length, 0x55));
    }

    @Test
    void committedAndTentativeSlotsSplitAMask()
    {
        final long[] words = {tentative(KEY, 1), committed(KEY, 2), tentative(KEY, 3), committed(KEY, 4)};
        final int all = IndexDecisions.ofFingerprint(words, words.length, KEY);
        assertEquals(mask(1, 3), IndexDecisions.committed(words, all));
        assertEquals(mask(0, 2), IndexDecisions.tentative(words, all));
        assertEquals(mask(3), IndexDecisions.committed(words, mask(0, 3)), "only the slots of the mask are judged");
    }

    @Test
    void aReaderTakesTheFirstCommittedSlotOfTheFingerprintThenTheNext()
    {
        final long[] words = {committed(OTHER, 1), tentative(KEY, 2), committed(KEY, 3), E, committed(KEY, 5)};
        assertEquals(2, IndexDecisions.nextCommitted(words, words.length, 0, KEY));
        assertEquals(4, IndexDecisions.nextCommitted(words, words.length, 3, KEY),
            "the next when a block is another's");
        assertEquals(NONE, IndexDecisions.nextCommitted(words, words.length, 5, KEY));
        assertEquals(NONE, IndexDecisions.nextCommitted(words, 2, 0, KEY), "a tentative slot holds no value");
    }

    @Test
    void anInsertTakesTheFirstEmptySlotInAddressOrder()
    {
        assertEquals(1, IndexDecisions.firstEmpty(new long[] {committed(KEY, 1), E, E}, 3));
        assertEquals(NONE, IndexDecisions.firstEmpty(new long[] {committed(KEY, 1), tentative(OTHER, 2), E}, 2),
            "full candidates: the subtable splits");
    }

    @Test
    void onlyOneSlotOrNoneOrSeveral()
    {
        assertEquals(NONE, IndexDecisions.only(0));
        assertEquals(5, IndexDecisions.only(mask(5)));
        assertEquals(SEVERAL, IndexDecisions.only(mask(0, 5)));
        assertEquals(3, IndexDecisions.first(mask(3, 9)));
        assertEquals(NONE, IndexDecisions.first(0));
    }

    @Test
    void slotsAreFoundByOffsetAndByWord()
    {
        final long[] offsets = {64, 72, 128, 136};
        assertEquals(2, IndexDecisions.indexOf(offsets, offsets.length, 128));
        assertEquals(NONE, IndexDecisions.indexOf(offsets, 2, 128), "a split moved it out of the candidates read");
        final long[] words = {committed(KEY, 1), E, committed(KEY, 1), E};
        assertEquals(mask(0, 2), IndexDecisions.holding(words, words.length, committed(KEY, 1)));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 5, 13, 27})
    void earlierAndLaterSlotsAreTheOnesBeforeAndAfterInAddressOrder(final int mine)
    {
        final int all = (1 << IndexDecisions.MAX_SLOTS) - 1;
        for (int i = 0; i < IndexDecisions.MAX_SLOTS; i++)
        {
            final int bit = 1 << i;
            assertEquals(i < mine ? bit : 0, IndexDecisions.earlier(all, mine) & bit, "slot " + i);
            assertEquals(i > mine ? bit : 0, IndexDecisions.later(all, mine) & bit, "slot " + i);
        }
    }

    @Test
    void anInsertWhoseSlotMovedOutOfTheCandidatesWithdraws()
    {
        assertEquals(INSERT_MOVED, IndexDecisions.insertVerdict(NONE, E, tentative(KEY, 1), false, 0));
    }

    @Test
    void anInsertClearedByAnEarlierInsertOfTheKeyStartsOver()
    {
        final long mine = tentative(KEY, 1);
        assertEquals(INSERT_CLEARED, IndexDecisions.insertVerdict(3, E, mine, false, mask(1)));
        assertEquals(INSERT_CLEARED, IndexDecisions.insertVerdict(3, tentative(OTHER, 9), mine, false, 0),
            "the slot emptied and taken again");
    }

    @Test
    void aCommittedSlotOfTheKeyThatAppearedWins()
    {
        final long mine = tentative(KEY, 1);
        assertEquals(INSERT_COMMITTED_SEEN, IndexDecisions.insertVerdict(3, mine, mine, true, mask(3)));
        assertEquals(INSERT_COMMITTED_SEEN, IndexDecisions.insertVerdict(0, mine, mine, true, mask(0, 1)),
            "even when this tentative slot is the first");
    }

    @Test
    void theFirstTentativeSlotOfTheKeyInAddressOrderCommits()
    {
        final long mine = tentative(KEY, 1);
        assertEquals(INSERT_YIELD, IndexDecisions.insertVerdict(3, mine, mine, false, mask(1, 3, 6)));
        assertEquals(INSERT_COMMIT, IndexDecisions.insertVerdict(3, mine, mine, false, mask(3, 6)),
            "later ones are cleared first");
        assertEquals(INSERT_COMMIT, IndexDecisions.insertVerdict(3, mine, mine, false, mask(6)),
            "the insert's own slot need not be in the mask");
        assertEquals(INSERT_COMMIT, IndexDecisions.insertVerdict(0, mine, mine, false, 0));
    }
}

package io.dkv.client.replication;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a fill pass notes for the switch after it, with hand-made words: which words are accounted for, which moving
 * keys lost a settled word and where a word of theirs still stands, and that it gives up, holding nothing, rather than
 * outgrow its budget.
 */
class ChangeLedgerTest
{
    private static final int SOURCE = 0;
    private static final int JOINER = 2;

    @Test
    void aWordIsAccountedForWhenItsKeyStaysOrWasFoundInPlaceWithIt()
    {
        final ChangeLedger ledger = new ChangeLedger(7, 3, 1 << 20);
        ledger.seen(SOURCE, 100);
        ledger.group();
        ledger.settled(JOINER, 201);
        ledger.settled(SOURCE, 101);
        ledger.settledTail(SOURCE, 101);
        ledger.close(true);

        assertTrue(ledger.servesHandoverOf(9), "the handover after the fill and the switch");
        assertFalse(ledger.servesHandoverOf(8), "the switch itself");
        assertFalse(ledger.servesHandoverOf(10), "a membership event between them");
        assertTrue(ledger.isSettledTail(SOURCE, 101), "the moving key's tail, sealed from this word if it stands");
        assertFalse(ledger.isSettledTail(JOINER, 201), "its copy on the joiner is no tail");
        assertFalse(ledger.isSettledTail(SOURCE, 100), "nor is a key that does not move");
        assertTrue(ledger.accountedFor(SOURCE, 100), "a key that does not move");
        assertTrue(ledger.accountedFor(SOURCE, 101), "a moving key as the fill found it");
        assertTrue(ledger.accountedFor(JOINER, 201), "its copy on the joiner");
        assertFalse(ledger.accountedFor(SOURCE, 102), "a write since");
        assertFalse(ledger.accountedFor(JOINER, 101), "words are a node's own");
    }

    @Test
    void aKeyThatLostASettledWordIsReadFromOneOfItsWordsStillStanding()
    {
        final ChangeLedger ledger = new ChangeLedger(7, 3, 1 << 20);
        ledger.group();
        ledger.settled(JOINER, 201);
        ledger.settled(SOURCE, 101);
        ledger.group();
        ledger.settled(JOINER, 202);
        ledger.settled(SOURCE, 102);
        ledger.group();
        ledger.settled(JOINER, 203);
        ledger.settled(SOURCE, 103);
        ledger.close(true);

        // key 1 deleted at the source alone; key 2 untouched; key 3 gone from both (deleted everywhere)
        final long[][] present = {{102}, null, {201, 202}};
        final int[] nodes = new int[3];
        final long[] words = new long[3];
        assertEquals(1, ledger.standingWordsOfGone(present, new int[]{1, 0, 2}, nodes, words));
        assertEquals(JOINER, nodes[0]);
        assertEquals(201, words[0], "key 1 is read from its copy on the joiner, which still names it");
    }

    @Test
    void aLedgerThatWouldOutgrowItsBudgetHoldsNothingAndServesNoHandover()
    {
        final ChangeLedger ledger = new ChangeLedger(7, 3, 64 * 1024);
        for (int k = 0; k < 100_000; k++)
        {
            ledger.seen(SOURCE, k);
        }
        ledger.group();
        ledger.settled(JOINER, 1);
        ledger.close(true);

        assertTrue(ledger.abandoned());
        assertFalse(ledger.servesHandoverOf(9), "the handover reads every moving key again instead");
        assertFalse(ledger.isSettledTail(SOURCE, 1));
    }
}

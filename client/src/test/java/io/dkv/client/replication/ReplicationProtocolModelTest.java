package io.dkv.client.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication protocol (client/README.md, "Replication") explored exhaustively in small scopes: two writers of
 * one put each and a reader, on r = 2 and r = 3 replicas of a key's slot, with and without the crash of a replica and
 * of a writer at any step. Every interleaving keeps the invariants and yields a linearizable history, and the same
 * checker catches broken forms of the protocol.
 */
class ReplicationProtocolModelTest
{
    static List<Scope> scopes()
    {
        final List<Scope> scopes = new ArrayList<>();
        for (int replicas = 2; replicas <= 3; replicas++)
        {
            for (int replicaCrashes = 0; replicaCrashes <= 1; replicaCrashes++)
            {
                for (int writerCrashes = 0; writerCrashes <= 1; writerCrashes++)
                {
                    scopes.add(new Scope(replicas, replicaCrashes, writerCrashes, 1, 2, Variant.CHAIN));
                }
            }
        }
        // two reads in a row see no value go back; a writer that gives up at once reports failure truthfully
        scopes.add(new Scope(3, 1, 1, 2, 2, Variant.CHAIN));
        scopes.add(new Scope(3, 1, 1, 1, 1, Variant.CHAIN));
        return scopes;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scopes")
    void everyInterleavingIsLinearizableAndKeepsTheInvariants(final Scope scope)
    {
        final Explorer.Result result = Explorer.explore(scope, true);
        System.out.println(result);
        assertTrue(result.holds(), result::toString);
        assertTrue(result.terminalStates() > 0, "nothing explored: " + result);
    }

    @Test
    void acknowledgingAtTheTailAloneIsCaughtByTheHistoryCheck()
    {
        final Scope scope = new Scope(2, 0, 0, 1, 2, Variant.ACK_AT_TAIL);
        assertCaught(scope, false, "not linearizable");
        assertCaught(scope, true, "was acknowledged but");
    }

    @Test
    void readingTheTailIsCaughtOnceAReplicaCanCrash()
    {
        assertCaught(new Scope(2, 1, 0, 2, 2, Variant.READ_TAIL), true, "not linearizable");
    }

    @Test
    void leavingACrashedWritersWriteUnrepairedIsCaughtAsClientsThatWaitForEver()
    {
        assertCaught(new Scope(2, 0, 1, 1, 2, Variant.NO_REPAIR), true, "wait for ever");
    }

    /** The walk must stop on a counterexample of the kind named, printed with the steps that lead to it. */
    private static void assertCaught(final Scope scope, final boolean checkInvariants, final String kind)
    {
        final Explorer.Result result = Explorer.explore(scope, checkInvariants);
        System.out.println(result);
        assertFalse(result.holds(), "no counterexample: " + result);
        assertTrue(result.counterexample().contains(kind), result::toString);
    }

    @Test
    void theCheckerRejectsAReadOfAValueNeverWritten()
    {
        final History history = new History(
            new int[]{History.FAILED, History.NOT_INVOKED, History.OK}, new int[]{0, 0, 1}, 0);
        assertFalse(LinearizabilityChecker.isLinearizable(history), history::toString);
    }

    @Test
    void theCheckerRejectsAStaleReadAfterAnAcknowledgedWrite()
    {
        // W1 answered ok before R1 was invoked: bit (0 * 3 + 2)
        final History history = new History(
            new int[]{History.OK, History.NOT_INVOKED, History.OK}, new int[]{0, 0, 0}, 1 << 2);
        assertFalse(LinearizabilityChecker.isLinearizable(history), history::toString);
        final History concurrent = new History(history.status(), history.readValue(), 0);
        assertTrue(LinearizabilityChecker.isLinearizable(concurrent), concurrent::toString);
    }

    @Test
    void theCheckerLetsAWriteWithoutAnAnswerLandOrNot()
    {
        final int[] pending = {History.PENDING, History.NOT_INVOKED, History.OK};
        assertTrue(LinearizabilityChecker.isLinearizable(new History(pending, new int[]{0, 0, 1}, 0)));
        assertTrue(LinearizabilityChecker.isLinearizable(new History(pending, new int[]{0, 0, 0}, 0)));
    }
}

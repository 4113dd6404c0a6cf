package io.dkv.client.replication;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The membership change (client/README.md, "Membership change") explored exhaustively for one key whose placement
 * moves: the driver takes the phase from STEADY over the replicas before the change through FILL, SWITCH and CLEANUP
 * to STEADY over the replicas after it, while two writers put, readers get and a writer may crash, each client
 * acting on its own view of the phase, at most one phase behind the driver's. Every interleaving keeps the
 * invariants and yields a linearizable history, and the checker catches broken forms of the change.
 */
class MembershipChangeModelTest
{
    private static final Placement MOVE_ONE_COPY = Placement.of("X", "N");
    private static final Placement ADD_AS_HEAD = Placement.of("A X", "N A");
    private static final Placement ADD_AS_TAIL = Placement.of("A X", "A N");
    private static final Placement DRAIN_TAIL = Placement.of("A X", "A B");
    private static final Placement DRAIN_HEAD = Placement.of("X A", "A B");
    private static final Placement SWAP_HEAD = Placement.of("A X", "X A");

    static List<MoveScope> scopes()
    {
        final List<MoveScope> scopes = new ArrayList<>();
        for (final Placement placement : List.of(MOVE_ONE_COPY, ADD_AS_HEAD, ADD_AS_TAIL, DRAIN_TAIL, DRAIN_HEAD,
            SWAP_HEAD))
        {
            for (int writerCrashes = 0; writerCrashes <= 1; writerCrashes++)
            {
                scopes.add(new MoveScope(placement, writerCrashes, 1, 2, true, MoveVariant.DESIGN));
            }
        }
        // a second reader sees what one reader answered, the other did not: reads across two views
        scopes.add(new MoveScope(MOVE_ONE_COPY, 0, 2, 2, true, MoveVariant.DESIGN));
        scopes.add(new MoveScope(ADD_AS_HEAD, 0, 2, 2, true, MoveVariant.DESIGN));
        scopes.add(new MoveScope(MOVE_ONE_COPY, 1, 2, 2, true, MoveVariant.DESIGN));
        // forcing that stops once the tail moves on keeps it all too
        scopes.add(new MoveScope(MOVE_ONE_COPY, 1, 1, 2, true, MoveVariant.FORCE_WHILE_TAIL_NAMES_IT));
        scopes.add(new MoveScope(ADD_AS_HEAD, 1, 1, 2, true, MoveVariant.FORCE_WHILE_TAIL_NAMES_IT));
        scopes.add(new MoveScope(DRAIN_HEAD, 1, 1, 2, true, MoveVariant.FORCE_WHILE_TAIL_NAMES_IT));
        scopes.addAll(handovers());
        return scopes;
    }

    /**
     * Writes that go on through SWITCH, each key handed over by a seal on its tail before the change (walked with the
     * design's scopes above). A writer may crash (the runs where none does are among those walked); a drained tail
     * has the shape of a tail added.
     */
    private static List<MoveScope> handovers()
    {
        final List<MoveScope> scopes = new ArrayList<>();
        for (final Placement placement : List.of(MOVE_ONE_COPY, ADD_AS_HEAD, ADD_AS_TAIL, DRAIN_HEAD, SWAP_HEAD))
        {
            scopes.add(new MoveScope(placement, 1, 1, 2, true, MoveVariant.HANDOVER));
        }
        // reads across two views while writes go on (writers that lose a race give up: the walk fits the heap)
        scopes.add(new MoveScope(MOVE_ONE_COPY, 0, 2, 1, true, MoveVariant.HANDOVER));
        // as built: writers in SWITCH seal the key themselves, never chaining over the placement before
        for (final Placement placement : List.of(MOVE_ONE_COPY, ADD_AS_HEAD, ADD_AS_TAIL, DRAIN_HEAD, SWAP_HEAD))
        {
            scopes.add(new MoveScope(placement, 1, 1, 2, true, MoveVariant.WRITERS_SEAL));
        }
        scopes.add(new MoveScope(MOVE_ONE_COPY, 0, 2, 1, true, MoveVariant.WRITERS_SEAL));
        return scopes;
    }

    @Test
    void writersThatSealWhileClientsInFillRemainAreCaught()
    {
        // at r = 1 a write decided at the tail after whose force stopped never reaches the head a fill reader reads
        assertCaught(new MoveScope(MOVE_ONE_COPY, 1, 1, 2, true, MoveVariant.WRITERS_SEAL_EARLY), true,
            "not linearizable");
    }

    @Test
    void aWriterThatSealsBeforeTheEnteringMemberHoldsTheWriteIsCaught()
    {
        // as the driver's seal before the member is filled: writers over the placement after start from no value
        assertCaught(new MoveScope(MOVE_ONE_COPY, 0, 1, 2, true, MoveVariant.WRITERS_SEAL_UNFILLED), false,
            "not linearizable");
    }

    @Test
    void aSealBeforeTheEnteringMemberHoldsTheWriteIsCaught()
    {
        // writers chaining over the placement after start from a member that never got the key's value
        assertCaught(new MoveScope(MOVE_ONE_COPY, 0, 1, 2, true, MoveVariant.HANDOVER_SEAL_BEFORE_FILLED), false,
            "not linearizable");
    }

    @Test
    void aForceOverThePlacementBeforeGoingOnPastTheSealIsCaught()
    {
        // the force lands on the member entering, now the tail after, over a write it decided
        assertCaught(new MoveScope(MOVE_ONE_COPY, 0, 1, 2, true, MoveVariant.HANDOVER_FORCES_PAST_SEAL), true,
            "invariant broken");
    }

    @Test
    void aRollForwardFromReadsNotCheckedAgainstTheTailIsCaught()
    {
        // the tail read before a newer write won it, the head after that write reached it: the older write rolled on
        assertCaught(new MoveScope(SWAP_HEAD, 1, 1, 2, true, MoveVariant.HANDOVER_ROLLS_UNCHECKED), true,
            "invariant broken");
    }

    @Test
    void aSealDroppedByAWriteOverThePlacementAfterIsCaught()
    {
        // a writer that reads the tail before unsealed chains over the placement before again: two tails decide
        assertCaught(new MoveScope(ADD_AS_HEAD, 0, 1, 2, true, MoveVariant.HANDOVER_DROPS_SEAL), true,
            "invariant broken");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scopes")
    void everyInterleavingIsLinearizableAndKeepsTheInvariants(final MoveScope scope)
    {
        final Explorer.Result result = explore(scope, true);
        assertTrue(result.holds(), result::toString);
        assertTrue(result.terminalStates() > 0, "nothing explored: " + result);
    }

    @Test
    void skippingSwitchIsCaught()
    {
        // a FILL writer's write reaches the head after, not yet the head before, and CLEANUP readers read the former
        final MoveScope scope = new MoveScope(ADD_AS_HEAD, 0, 2, 2, true, MoveVariant.SKIP_SWITCH);
        assertCaught(scope, false, "not linearizable");
        assertCaught(scope, true, "invariant broken");
    }

    @Test
    void switchReadersReadingTheHeadAfterAloneAreCaught()
    {
        assertCaught(new MoveScope(ADD_AS_HEAD, 0, 2, 2, true, MoveVariant.SWITCH_READS_AFTER_HEAD), false,
            "not linearizable");
        assertCaught(new MoveScope(MOVE_ONE_COPY, 0, 2, 2, true, MoveVariant.SWITCH_READS_AFTER_HEAD), false,
            "not linearizable");
    }

    @Test
    void switchReadersReadingTheHeadAfterAloneAreHarmlessWhereBothPlacementsShareTheirHead()
    {
        assertHolds(new MoveScope(ADD_AS_TAIL, 0, 2, 2, true, MoveVariant.SWITCH_READS_AFTER_HEAD));
    }

    @Test
    void cleanupWritersSkippingTheLeavingMembersLeaveSwitchReadersOfALeavingHeadWaitingForTheMembership()
    {
        final MoveScope keepingTheirView =
            new MoveScope(DRAIN_HEAD, 0, 1, 2, false, MoveVariant.CLEANUP_SKIPS_LEAVING);
        assertCaught(keepingTheirView, true, "wait for ever");
        assertHolds(keepingTheirView.with(MoveVariant.DESIGN));
        // no read answers wrong: the heads never agree on a write the leaving head missed, readers only wait
        assertHolds(new MoveScope(DRAIN_HEAD, 1, 1, 2, true, MoveVariant.CLEANUP_SKIPS_LEAVING));
    }

    @Test
    void clientsTwoPhasesApartAreCaught()
    {
        final MoveScope scope = new MoveScope(ADD_AS_HEAD, 0, 2, 2, true, MoveVariant.TWO_PHASES_APART);
        assertCaught(scope, false, "not linearizable");
        assertCaught(scope, true, "invariant broken");
    }

    @Test
    void switchReadersMustReadTheMembershipAgainWhileTheyWaitForACrashedCleanupWriter()
    {
        // the crashed writer won the tail after; no writer is left to roll its write forward onto the head after
        assertCaught(new MoveScope(ADD_AS_HEAD, 1, 1, 2, false, MoveVariant.DESIGN), true, "wait for ever");
    }

    @Test
    void atOneCopyAForceLandingAfterALaterWritersLeavesTheLeavingHeadBehindUnlessItStopsOnceTheTailMovesOn()
    {
        // the tail is the head: a second writer wins it before the first forces X, whose force then lands last
        final MoveScope keepingTheirView = new MoveScope(MOVE_ONE_COPY, 0, 1, 2, false, MoveVariant.DESIGN);
        assertCaught(keepingTheirView, true, "wait for ever");
        assertHolds(keepingTheirView.with(MoveVariant.FORCE_WHILE_TAIL_NAMES_IT));
    }

    private static Explorer.Result explore(final MoveScope scope, final boolean checkInvariants)
    {
        final Explorer.Result result = Explorer.explore(new MembershipChangeModel(scope), checkInvariants);
        System.out.println(result);
        return result;
    }

    private static void assertHolds(final MoveScope scope)
    {
        final Explorer.Result result = explore(scope, true);
        assertTrue(result.holds(), result::toString);
    }

    /** The walk must stop on a counterexample of the kind named, printed with the steps that lead to it. */
    private static void assertCaught(final MoveScope scope, final boolean checkInvariants, final String kind)
    {
        final Explorer.Result result = explore(scope, checkInvariants);
        assertFalse(result.holds(), "no counterexample: " + result);
        assertTrue(result.counterexample().contains(kind), result::toString);
    }
}

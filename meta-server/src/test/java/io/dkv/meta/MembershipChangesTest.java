package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dkv.raas.Membership.CLEANUP;
import static io.dkv.raas.Membership.HANDOVER;
import static io.dkv.raas.Membership.DOWN;
import static io.dkv.raas.Membership.FILL;
import static io.dkv.raas.Membership.JOINING;
import static io.dkv.raas.Membership.LIVE;
import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.PLACED_AFTER;
import static io.dkv.raas.Membership.PLACED_BEFORE;
import static io.dkv.raas.Membership.STEADY;
import static io.dkv.raas.Membership.SWITCH;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A membership change that moves keys: who may be added or drained, the phases it goes through (each a new epoch),
 * what STEADY and an abort leave, what asking again does, and how the peer applies it.
 */
class MembershipChangesTest
{
    private final Members members = new Members(new MembershipRecord(1, 2, List.of()));
    private final MembershipChanges changes = new MembershipChanges(members);

    private void found(final long... nodeIds)
    {
        for (final long nodeId : nodeIds)
        {
            members.registered(nodeId, 1);
        }
    }

    private static MetaRpcException refused(final org.junit.jupiter.api.function.Executable request)
    {
        final MetaRpcException refusal = assertThrows(MetaRpcException.class, request);
        assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, refusal.status(), refusal.getMessage());
        return refusal;
    }

    @Test
    void anAddedNodeIsPlacedAfterOnlyInFillThenPlacedAtSteady()
    {
        found(101, 102);
        final long epoch = members.epoch();
        final MembershipRecord change = changes.add(103, 4);
        assertEquals(FILL, change.phase(), "a change that moves the phase carries it");
        assertEquals(List.of(new MemberRecord(103, LIVE, 4, PLACED_AFTER)), change.members());
        assertEquals(FILL, members.phase());
        assertEquals(epoch + 1, members.epoch());

        assertEquals(SWITCH, changes.advance(FILL).phase());
        assertEquals(HANDOVER, changes.advance(SWITCH).phase());
        assertEquals(CLEANUP, changes.advance(HANDOVER).phase());
        final MembershipRecord steady = changes.advance(CLEANUP);
        assertEquals(STEADY, steady.phase());
        assertEquals(List.of(new MemberRecord(103, LIVE, 4, PLACED)), steady.members());
        assertEquals(epoch + 5, members.epoch(), "each phase is an epoch");
        assertEquals(new MembershipRecord(epoch + 5, 2, List.of(new MemberRecord(101, LIVE, 1),
            new MemberRecord(102, LIVE, 1), new MemberRecord(103, LIVE, 4))), members.record());
    }

    @Test
    void aDrainedMemberIsPlacedBeforeOnlyInFillAndLeavesAtSteady()
    {
        found(101, 102);
        final MembershipRecord change = changes.drain(101);
        assertEquals(List.of(new MemberRecord(101, LIVE, 1, PLACED_BEFORE)), change.members());
        assertEquals(FILL, members.phase());
        changes.advance(FILL);
        changes.advance(SWITCH);
        changes.advance(HANDOVER);
        final MembershipRecord steady = changes.advance(CLEANUP);
        assertEquals(List.of(MemberRecord.removed(101, LIVE, 1)), steady.members(), "the peer removes it too");
        assertEquals(List.of(new MemberRecord(102, LIVE, 1)), members.record().members());
        assertEquals(STEADY, members.phase());
    }

    @Test
    void aJoiningNodeWithNoMembersFoundsInstead()
    {
        final MembershipRecord change = changes.add(101, 3);
        assertEquals(MembershipRecord.PHASE_KEPT, change.phase(), "no change runs: the phase stays");
        assertEquals(List.of(new MemberRecord(101, LIVE, 3, PLACED)), members.record().members());
        assertEquals(STEADY, members.phase());
    }

    @Test
    void askingAgainForWhatIsSoChangesNothing()
    {
        found(101, 102);
        changes.add(103, 4);
        final long epoch = members.epoch();
        assertNull(changes.add(103, 4), "the same add in fill");
        changes.advance(FILL);
        assertNull(changes.advance(FILL), "a driver whose answer was lost asks again");
        assertEquals(epoch + 1, members.epoch());
        changes.advance(SWITCH);
        changes.advance(HANDOVER);
        changes.advance(CLEANUP);
        assertNull(changes.advance(CLEANUP), "steady already");

        changes.drain(101);
        assertNull(changes.drain(101), "the same drain in fill");
    }

    @Test
    void anAdvanceFromAnotherPhaseIsRefusedNamingThePhaseItIsIn()
    {
        found(101, 102);
        assertTrue(refused(() -> changes.advance(FILL)).getMessage().contains("the membership is in steady"));
        changes.drain(102);
        assertTrue(refused(() -> changes.advance(CLEANUP)).getMessage().contains("the membership is in fill"),
            "no phase is skipped");
        assertTrue(refused(() -> changes.advance(STEADY)).getMessage().contains("not from steady"));
        assertEquals(FILL, members.phase());
    }

    @Test
    void oneChangeRunsAtATime()
    {
        found(101, 102, 103);
        changes.drain(101);
        final MetaRpcException add = refused(() -> changes.add(104, 1));
        assertTrue(add.getMessage().contains("node 104 cannot be added: a membership change runs (fill, draining 101)"),
            add.getMessage());
        assertTrue(add.getMessage().contains("epoch " + members.epoch()), add.getMessage());
        assertTrue(refused(() -> changes.drain(102)).getMessage().contains("draining 101"));
        assertNull(members.registered(105, 1), "a founding node is no member while a change runs");
        assertNull(members.member(105));
    }

    @Test
    void drainRefusesANonMemberANodeNotLiveAndTheLastMember()
    {
        found(101, 102);
        assertTrue(refused(() -> changes.drain(999)).getMessage()
            .contains("node 999 cannot be drained: it is no member"));
        members.down(102);
        assertTrue(refused(() -> changes.drain(102)).getMessage().contains("it is down"));
        final Members alone = new Members(new MembershipRecord(1, 1, List.of(new MemberRecord(101, LIVE, 1))));
        assertTrue(refused(() -> new MembershipChanges(alone).drain(101)).getMessage().contains("the last member"));
        assertTrue(refused(() -> changes.add(101, 1)).getMessage().contains("a member already"));
    }

    @Test
    void anAbortGoesBackToTheBeforePlacement()
    {
        found(101, 102);
        changes.add(103, 4);
        changes.advance(FILL);
        final MembershipRecord aborted = changes.abort();
        assertEquals(STEADY, aborted.phase());
        assertEquals(List.of(MemberRecord.removed(103, LIVE, 4)), aborted.members());
        assertEquals(List.of(new MemberRecord(101, LIVE, 1), new MemberRecord(102, LIVE, 1)),
            members.record().members());

        changes.drain(101);
        assertEquals(List.of(new MemberRecord(101, LIVE, 1, PLACED)), changes.abort().members());
        assertEquals(STEADY, members.phase());
        assertTrue(refused(changes::abort).getMessage().contains("no change to abort: the membership is in steady"));
    }

    @Test
    void aChangeInHandoverOrCleanupCannotBeAborted()
    {
        found(101, 102);
        changes.drain(101);
        changes.advance(FILL);
        changes.advance(SWITCH);
        assertTrue(refused(changes::abort).getMessage().contains("handover"));
        assertEquals(HANDOVER, members.phase());
        changes.advance(HANDOVER);
        assertTrue(refused(changes::abort).getMessage().contains("cleanup"));
        assertEquals(CLEANUP, members.phase());
    }

    @Test
    void anAddedMemberLostInHandoverLeavesTheChangeGoingOn()
    {
        found(101, 102);
        changes.add(103, 4);
        changes.advance(FILL);
        changes.advance(SWITCH);
        members.down(103);
        assertNull(changes.lost(103), "writes are decided over the placement after: no way back");
        assertEquals(HANDOVER, members.phase());
        assertEquals(DOWN, members.member(103).state());
    }

    @Test
    void anAddedMemberLostBeforeHandoverAbortsADrainedOneDoesNot()
    {
        found(101, 102);
        changes.add(103, 4);
        members.down(103);
        final MembershipRecord aborted = changes.lost(103);
        assertEquals(STEADY, aborted.phase());
        assertNull(members.member(103));

        changes.drain(101);
        members.down(101);
        assertNull(changes.lost(101), "its keys have other copies");
        assertEquals(new MemberRecord(101, DOWN, 1, PLACED_BEFORE, 8), members.member(101));
        assertEquals(FILL, members.phase());
    }

    @Test
    void aMemberComingBackKeepsItsPlacement()
    {
        found(101, 102);
        changes.add(103, 4);
        members.registered(103, 5);
        assertEquals(new MemberRecord(103, JOINING, 5, PLACED_AFTER, 5 | Membership.MEMORY_LOST), members.member(103));
        members.markLive(103, 5);
        assertEquals(new MemberRecord(103, LIVE, 5, PLACED_AFTER), members.member(103));
    }

    @Test
    void thePeerTakesAPhaseChangeWholeAndAMemberChangeWithoutItsPlacement()
    {
        found(101, 102);
        final Members peer = new Members(members.record());
        peer.apply(changes.add(103, 4));
        assertEquals(members.record().members(), peer.record().members());
        assertEquals(FILL, peer.phase());

        // the peer saw 103 before the add's move reached it: its member change must not place 103 or add it back
        peer.apply(new MembershipRecord(peer.epoch(), 2, List.of(new MemberRecord(103, LIVE, 4, PLACED)),
            MembershipRecord.PHASE_KEPT));
        assertEquals(PLACED_AFTER, peer.member(103).placement());
        peer.apply(changes.abort());
        assertNull(peer.member(103));
        assertEquals(STEADY, peer.phase());
        peer.apply(new MembershipRecord(peer.epoch(), 2, List.of(new MemberRecord(103, DOWN, 4, PLACED_AFTER)),
            MembershipRecord.PHASE_KEPT));
        assertNull(peer.member(103), "a late change of a member placed after only does not bring it back");
        assertEquals(members.record().members(), peer.record().members());
    }
}

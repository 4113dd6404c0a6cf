package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import io.dkv.raas.meta.MetaTableDescriptor;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.DOWN;
import static io.dkv.raas.Membership.JOINING;
import static io.dkv.raas.Membership.LIVE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The membership's rules: who joins live, who comes back joining or live, who goes down (and stays a
 * member), when a joining member may be marked live, and how a change from the peer is applied. Each
 * change moves the epoch; what changes nothing leaves it.
 */
class MembersTest
{
    private static Members members(final int replicas)
    {
        return new Members(new MembershipRecord(1, replicas, List.of()));
    }

    @Test
    void aNodeThatWasNeverAMemberJoinsLive()
    {
        final Members members = members(2);
        assertEquals(new MemberRecord(101, LIVE, 7), members.registered(101, 7));
        assertEquals(2, members.epoch());
        assertNull(members.registered(101, 7), "registering again as the same incarnation changes nothing");
        assertEquals(2, members.epoch());
    }

    @Test
    void aMemberThatGoesDownKeepsItsPlace()
    {
        final Members members = members(2);
        members.registered(101, 7);
        members.registered(102, 3);
        assertEquals(new MemberRecord(101, DOWN, 7, PLACED, 4), members.down(101));
        assertEquals(List.of(new MemberRecord(101, DOWN, 7, PLACED, 4), new MemberRecord(102, LIVE, 3)),
            members.record().members(), "still a member, in its place");
        final long epoch = members.epoch();
        assertNull(members.down(101), "down already");
        assertNull(members.down(999), "no member");
        assertEquals(epoch, members.epoch());
    }

    @Test
    void aDownMemberComesBackJoiningWhenOthersHoldItsCopiesAndLiveWhenNoneDo()
    {
        final Members two = members(2);
        two.registered(101, 7);
        two.down(101);
        assertEquals(new MemberRecord(101, JOINING, 7, PLACED, 3), two.registered(101, 7),
            "the same incarnation, back");

        final Members one = members(1);
        one.registered(101, 7);
        one.down(101);
        assertEquals(new MemberRecord(101, LIVE, 8), one.registered(101, 8));
    }

    @Test
    void aMemberRestartedWithinItsLeaseIsJoiningAsItsNewIncarnation()
    {
        final Members members = members(3);
        members.registered(101, 7);
        // left live when it came back as another incarnation, whose memory is not the one it served with
        assertEquals(new MemberRecord(101, JOINING, 8, PLACED, 3 | Membership.MEMORY_LOST),
            members.registered(101, 8));
        assertEquals(new MemberRecord(101, JOINING, 9, PLACED, 3 | Membership.MEMORY_LOST),
            members.registered(101, 9), "again, while joining");

        final Members single = members(1);
        single.registered(101, 7);
        assertEquals(new MemberRecord(101, LIVE, 8), single.registered(101, 8));
    }

    @Test
    void aMemberRestartedFromItsDiskKeepsItsMemoryUnlessAnEarlierReturnLostIt()
    {
        final Members members = members(2);
        members.registered(101, 7);
        members.registered(102, 3);
        // every process killed at once: each comes back as another incarnation, its memory loaded from its disk
        assertEquals(new MemberRecord(101, JOINING, 8, PLACED, 4), members.registered(101, 8, true));
        assertEquals(new MemberRecord(102, JOINING, 4, PLACED, 5), members.registered(102, 4, true),
            "each left live in its own epoch: the later one served last");

        final Members lost = members(2);
        lost.registered(101, 7);
        lost.registered(101, 8);
        assertEquals(new MemberRecord(101, JOINING, 9, PLACED, 3 | Membership.MEMORY_LOST),
            lost.registered(101, 9, true), "its disk is that of an incarnation that came back empty and never served");
    }

    @Test
    void onlyAJoiningMemberOfTheNamedIncarnationIsMarkedLive()
    {
        final Members members = members(2);
        members.registered(101, 7);
        members.registered(101, 8);
        final MetaRpcException stale = assertThrows(MetaRpcException.class, () -> members.markLive(101, 7));
        assertEquals(MetaRpcDescriptor.STATUS_CONFLICT, stale.status());
        assertEquals("CONFLICT: node 101 is joining as incarnation 8; it can be marked live only while joining, and " +
            "as that incarnation, not 7", stale.getMessage());
        assertEquals(JOINING, members.member(101).state(), "unchanged by the refusal");

        assertEquals(new MemberRecord(101, LIVE, 8), members.markLive(101, 8));
        assertNull(members.markLive(101, 8), "asked again once live: nothing to do");

        members.down(101);
        assertTrue(assertThrows(MetaRpcException.class, () -> members.markLive(101, 8)).getMessage()
            .startsWith("CONFLICT: node 101 is down as incarnation 8"));
        assertTrue(assertThrows(MetaRpcException.class, () -> members.markLive(555, 1)).getMessage()
            .startsWith("CONFLICT: node 555 is no member"));
    }

    @Test
    void theReplicaCountChangesOnlyToAnotherValue()
    {
        final Members members = members(1);
        assertFalse(members.replicas(1));
        assertEquals(1, members.epoch());
        assertTrue(members.replicas(3));
        assertEquals(3, members.replicas());
        assertEquals(2, members.epoch());
    }

    @Test
    void aNewMemberBeyondTheTablesCapacityIsRefused()
    {
        final Members members = members(1);
        for (int i = 0; i < MetaTableDescriptor.MEMBER_SLOTS; i++)
        {
            members.registered(1000 + i, 1);
        }
        final MetaRpcException full = assertThrows(MetaRpcException.class, () -> members.registered(5000, 1));
        assertEquals(MetaRpcDescriptor.STATUS_TABLE_FULL, full.status());
        assertTrue(full.getMessage().contains("memory node 5000"), full.getMessage());
    }

    @Test
    void changesFromThePeerApplyMemberByMemberSoThatTheyNeverUndoEachOther()
    {
        final Members here = members(2);
        here.registered(101, 1);
        here.registered(102, 1);
        final Members peer = members(2);
        peer.install(here.record());

        // both expire leases: each takes a member down on its own and forwards just that member
        final MembershipRecord downHere = here.change(here.down(101));
        final MembershipRecord downThere = peer.change(peer.down(102));
        assertTrue(here.apply(downThere));
        assertTrue(peer.apply(downHere));
        assertEquals(here.record().members(), peer.record().members());
        assertEquals(List.of(new MemberRecord(101, DOWN, 1, PLACED, 4), new MemberRecord(102, DOWN, 1, PLACED, 4)),
            here.record().members());

        final long epoch = here.epoch();
        assertFalse(here.apply(downHere), "a change it holds already changes nothing");
        assertEquals(epoch, here.epoch());
        assertTrue(here.apply(new MembershipRecord(40, 3, List.of())), "the peer's replica count");
        assertEquals(3, here.replicas());
        assertEquals(40, here.epoch(), "the epoch moves past the peer's");
    }
}

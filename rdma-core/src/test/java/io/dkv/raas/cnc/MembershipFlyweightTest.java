package io.dkv.raas.cnc;

import io.dkv.raas.Membership;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * MEMBERSHIP data carries a membership to an attached client whole: the phase of a change and each member's
 * placement with the rest, and refuses to be written past what the client gave.
 */
class MembershipFlyweightTest
{
    @Test
    void aMembershipInAChangeReadsBackWhole()
    {
        final Membership changing = new Membership(44, 2, new long[]{7, 8, 9},
            new int[]{Membership.LIVE, Membership.JOINING, Membership.DOWN}, new long[]{70, 80, 90},
            new int[]{Membership.PLACED, Membership.PLACED_BEFORE, Membership.PLACED_AFTER}, Membership.CLEANUP);
        final MemorySegment data = MemorySegment.ofArray(new long[MembershipFlyweight.MAX_DATA_LENGTH / 8 + 2]);
        final int length = MembershipFlyweight.encode(changing, data, 8, MembershipFlyweight.MAX_DATA_LENGTH);
        assertEquals(MembershipFlyweight.DATA_HEADER_LENGTH + 3 * MembershipFlyweight.DATA_MEMBER_LENGTH, length);
        assertEquals(changing, MembershipFlyweight.decode(data, 8, length));
    }

    @Test
    void aMembershipLongerThanTheClientGaveIsRefused()
    {
        final Membership one = new Membership(1, 1, new long[]{7}, new int[]{Membership.LIVE});
        final MemorySegment data = MemorySegment.ofArray(new byte[64]);
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> MembershipFlyweight.encode(one, data, 0, MembershipFlyweight.DATA_HEADER_LENGTH));
        assertEquals("a membership of 1 members takes 48 bytes, more than the 24 the client gave",
            refused.getMessage());
    }
}

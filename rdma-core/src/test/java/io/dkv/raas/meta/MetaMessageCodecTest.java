package io.dkv.raas.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.PortAddress;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.List;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Records travel in RPC frames and table slots unchanged; a reader refuses what cannot be a field.
 */
class MetaMessageCodecTest
{
    private static final NodeRecord NODE = new NodeRecord(42, NodeRecord.ROLE_MEMORY,
        PortAddress.tcp(new InetSocketAddress("127.0.0.1", 7000)), 0x2001, 0xabcdefL, 17, 123_456);
    private static final RemoteRegion REGION =
        new RemoteRegion("index.subtable.7", 42, 17, 0x7f00_0000_1000L, 0x901, 1 << 20, 7, 3);

    @Test
    void recordsReadBackFromAFrame()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int length = new MetaMessageWriter().wrap(buffer).request(TYPE_PUBLISH_REGION, (short)0, 99)
            .putNode(NODE).putRegion(REGION).putName("é-name").finish();
        final MetaMessageReader reader = new MetaMessageReader().wrap(buffer, 0, length).body();
        assertEquals(TYPE_PUBLISH_REGION, reader.type());
        assertEquals(PROTOCOL_VERSION, reader.version());
        assertEquals(99, reader.requestId());
        assertEquals(NODE, reader.getNode());
        assertEquals(REGION, reader.getRegion());
        assertEquals("é-name", reader.getName());
        reader.requireEnd("test frame");
    }

    @Test
    void recordsReadBackFromTableSlots()
    {
        final MemorySegment slots = MemorySegment.ofArray(new byte[MetaTableDescriptor.REGION_SLOT_LENGTH]);
        MetaSlots.encodeNode(slots, 0, MetaTableDescriptor.STATE_LIVE, NODE);
        assertEquals(NODE, MetaSlots.decodeNode(slots, 0));
        final byte[] name = REGION.name().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        MetaSlots.encodeRegion(slots, 0, MetaTableDescriptor.STATE_LIVE, REGION, name);
        assertEquals(REGION, MetaSlots.decodeRegion(slots, 0));
        assertEquals(true, MetaSlots.hasName(slots, 0, name, MetaTableDescriptor.nameHash(name)));
    }

    @Test
    void aMembershipReadsBackFromAFrame()
    {
        final MembershipRecord membership = new MembershipRecord(12, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 5), new MemberRecord(102, Membership.JOINING, 9),
            new MemberRecord(103, Membership.DOWN, 1)));
        assertReadsBack(membership);
        assertEquals(new Membership(12, 2, new long[]{101, 102, 103},
            new int[]{Membership.LIVE, Membership.JOINING, Membership.DOWN}, new long[]{5, 9, 1}),
            membership.toMembership());
    }

    @Test
    void aMembershipWithAStateNoMemberHasOrMoreMembersThanTablesHoldIsMalformed()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int badState = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putLong(3).putInt(1).putInt(Membership.STEADY).putInt(1).putLong(101).putInt(9).putLong(1)
            .putInt(Membership.PLACED).finish();
        final MetaRpcException state = assertThrows(MetaRpcException.class,
            () -> new MetaMessageReader().wrap(buffer, 0, badState).body().getMembership());
        assertEquals(STATUS_MALFORMED, state.status());
        assertTrue(state.getMessage().contains("member 101 has no state 9"), state.getMessage());

        final int tooMany = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putLong(3).putInt(1).putInt(Membership.STEADY).putInt(MetaTableDescriptor.MAX_MEMBER_SLOTS + 1).finish();
        assertEquals(STATUS_MALFORMED, assertThrows(MetaRpcException.class,
            () -> new MetaMessageReader().wrap(buffer, 0, tooMany).body().getMembership()).status());

        final int noCopy = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putLong(3).putInt(0).putInt(Membership.STEADY).putInt(0).finish();
        assertEquals(STATUS_MALFORMED, assertThrows(MetaRpcException.class,
            () -> new MetaMessageReader().wrap(buffer, 0, noCopy).body().getMembership()).status());
    }

    @Test
    void theFoundersReadBackAfterAMembershipAndNoneOrMoreThanAMembershipHoldsIsMalformed()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final MembershipRecord change = new MembershipRecord(4, 2, List.of(new MemberRecord(103, Membership.LIVE, 1)));
        final int length = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putMembership(change).putFounders(new long[]{101, 102, 103}).finish();
        final MetaMessageReader reader = new MetaMessageReader().wrap(buffer, 0, length).body();
        assertEquals(change, reader.getMembership());
        assertArrayEquals(new long[]{101, 102, 103}, reader.getFounders());
        reader.requireEnd("test frame");

        for (final int count : new int[]{0, -1, MetaTableDescriptor.MAX_MEMBER_SLOTS + 1})
        {
            final int bad = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
                .putInt(count).finish();
            final MetaRpcException refused = assertThrows(MetaRpcException.class,
                () -> new MetaMessageReader().wrap(buffer, 0, bad).body().getFounders());
            assertEquals(STATUS_MALFORMED, refused.status());
            assertTrue(refused.getMessage().contains(count + " founders"), refused.getMessage());
        }
    }

    @Test
    void aMembershipInAChangeReadsBackWithItsPhaseAndPlacements()
    {
        final MembershipRecord membership = new MembershipRecord(13, 2, List.of(
            new MemberRecord(101, Membership.LIVE, 5, Membership.PLACED),
            new MemberRecord(102, Membership.LIVE, 9, Membership.PLACED_BEFORE),
            new MemberRecord(103, Membership.JOINING, 1, Membership.PLACED_AFTER)), Membership.SWITCH);
        assertReadsBack(membership);
        assertEquals(new Membership(13, 2, new long[]{101, 102, 103},
            new int[]{Membership.LIVE, Membership.LIVE, Membership.JOINING}, new long[]{5, 9, 1},
            new int[]{Membership.PLACED, Membership.PLACED_BEFORE, Membership.PLACED_AFTER}, Membership.SWITCH),
            membership.toMembership());
    }

    @Test
    void aReplicatedChangeCarriesARemovedMemberAndMayLeaveThePhase()
    {
        final MembershipRecord change = new MembershipRecord(14, 2, List.of(
            MemberRecord.removed(102, Membership.LIVE, 9)), MembershipRecord.PHASE_KEPT);
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int length = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putMembership(change).finish();
        final MembershipRecord read = new MetaMessageReader().wrap(buffer, 0, length).body().getMembership();
        assertEquals(change, read);
        assertTrue(read.members().getFirst().isRemoved());
        assertThrows(IllegalArgumentException.class, read::toMembership, "a change is no whole membership");
    }

    @Test
    void aMembershipWithAPhaseOrPlacementNoneHasIsMalformed()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int badPhase = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putLong(3).putInt(1).putInt(7).putInt(0).finish();
        final MetaRpcException phase = assertThrows(MetaRpcException.class,
            () -> new MetaMessageReader().wrap(buffer, 0, badPhase).body().getMembership());
        assertEquals(STATUS_MALFORMED, phase.status());
        assertTrue(phase.getMessage().contains("no phase 7"), phase.getMessage());

        final int badPlacement = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putLong(3).putInt(1).putInt(Membership.FILL).putInt(1).putLong(101).putInt(Membership.LIVE).putLong(1)
            .putInt(4).finish();
        final MetaRpcException placement = assertThrows(MetaRpcException.class,
            () -> new MetaMessageReader().wrap(buffer, 0, badPlacement).body().getMembership());
        assertEquals(STATUS_MALFORMED, placement.status());
        assertTrue(placement.getMessage().contains("member 101 has no placement 4"), placement.getMessage());
    }

    @Test
    void aNameOverOneHundredTwentyEightBytesIsRefusedBeforeItIsSent()
    {
        final MetaMessageWriter writer = new MetaMessageWriter().wrap(MemorySegment.ofArray(new byte[4096]));
        final MetaRpcException refused = assertThrows(MetaRpcException.class, () -> writer.putName("é".repeat(65)));
        assertEquals(STATUS_NAME_TOO_LONG, refused.status());
    }

    @Test
    void aTruncatedFieldIsMalformed()
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int length =
            new MetaMessageWriter().wrap(buffer).request(TYPE_REGISTER_NODE, (short)0, 1).putNode(NODE).finish();
        for (int cut = HEADER_LENGTH; cut < length; cut++)
        {
            final MetaMessageReader reader = new MetaMessageReader().wrap(buffer, 0, cut);
            final MetaRpcException refused = assertThrows(MetaRpcException.class, () ->
            {
                reader.body();
                reader.getNode();
            });
            assertEquals(STATUS_MALFORMED, refused.status(), "cut at " + cut);
        }
    }

    /** A membership written into a replication frame is read back whole, and nothing follows it. */
    private static void assertReadsBack(final MembershipRecord membership)
    {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[4096]);
        final int length = new MetaMessageWriter().wrap(buffer).request(TYPE_REPLICATE_MEMBERS, (short)0, 1)
            .putMembership(membership).finish();
        final MetaMessageReader reader = new MetaMessageReader().wrap(buffer, 0, length).body();
        assertEquals(membership, reader.getMembership());
        reader.requireEnd("test frame");
    }
}

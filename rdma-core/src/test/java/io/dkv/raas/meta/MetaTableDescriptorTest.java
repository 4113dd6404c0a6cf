package io.dkv.raas.meta;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static io.dkv.raas.meta.MetaTableDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tables are laid out as the descriptor's diagram says: the header's fields, the three sections
 * one after the other, and a members block whose every field lies before its checksum and whose whole
 * fits one READ into a reader's buffer.
 */
class MetaTableDescriptorTest
{
    @Test
    void theHeaderHoldsItsFieldsInSixtyFourBytes()
    {
        assertEquals(0, MAGIC_OFFSET);
        assertEquals(8, LAYOUT_VERSION_OFFSET);
        assertEquals(12, NODE_SLOTS_OFFSET);
        assertEquals(16, REGION_SLOTS_OFFSET);
        assertEquals(20, MEMBER_SLOTS_OFFSET);
        assertEquals(24, SERVER_NODE_ID_OFFSET);
        assertEquals(32, EPOCH_OFFSET);
        assertEquals(40, NODE_PROBE_LIMIT_OFFSET);
        assertEquals(44, REGION_PROBE_LIMIT_OFFSET);
        assertEquals(64, HEADER_LENGTH);
        assertEquals(5, LAYOUT_VERSION, "the handover phase before cleanup");
        assertEquals(EPOCH_OFFSET + EPOCH_READ_LENGTH, REGION_PROBE_LIMIT_OFFSET + 4,
            "the epoch READ covers the epoch and both probe limits");
    }

    @Test
    void theMembersBlockFollowsTheRegionSlots()
    {
        assertEquals(64 + 16 * 128 + 32 * 256, membersOffset(16, 32));
        assertEquals(membersOffset(16, 32) + 40 + 64 * 32, regionLength(16, 32));
        assertEquals(regionLength(16, 32, MEMBER_SLOTS), regionLength(16, 32));
        assertEquals(membersOffset(16, 32) + 40 + 3 * 32, regionLength(16, 32, 3));
    }

    @Test
    void aMembersBlockHasItsFieldsBeforeItsChecksumAndFitsOneRead()
    {
        assertEquals(0, VERSION_OFFSET);
        assertEquals(8, MEMBERS_EPOCH_OFFSET);
        assertEquals(16, MEMBERS_REPLICAS_OFFSET);
        assertEquals(20, MEMBERS_COUNT_OFFSET);
        assertEquals(24, MEMBERS_PHASE_OFFSET);
        assertEquals(32, MEMBERS_OFFSET);
        assertEquals(0, MEMBER_NODE_ID_OFFSET);
        assertEquals(8, MEMBER_INCARNATION_OFFSET);
        assertEquals(16, MEMBER_STATE_OFFSET);
        assertEquals(20, MEMBER_PLACEMENT_OFFSET);
        assertEquals(24, MEMBER_LEFT_LIVE_OFFSET);
        assertEquals(32, MEMBER_LENGTH);
        for (int slots = 1; slots <= MAX_MEMBER_SLOTS; slots++)
        {
            final int checksum = membersChecksumOffset(slots);
            assertEquals(MEMBERS_OFFSET + slots * MEMBER_LENGTH, checksum);
            assertEquals(0, checksum % 8, "the checksum covers whole words up to itself");
            assertEquals(checksum + 8, membersLength(slots), "the checksum ends the block");
        }
        assertTrue(MEMBER_SLOTS <= MAX_MEMBER_SLOTS);
        assertTrue(membersLength(MAX_MEMBER_SLOTS) <= MetaTableReader.BUFFER_BYTES,
            membersLength(MAX_MEMBER_SLOTS) + " bytes of members do not fit a reader's " +
            MetaTableReader.BUFFER_BYTES);
    }

    @Test
    void aMembersBlockIsSealedOnlyWithAnEvenVersionAndItsChecksum()
    {
        final int checksumOffset = membersChecksumOffset(2);
        final MemorySegment block = MemorySegment.ofArray(new byte[membersLength(2)]);
        assertFalse(isSealed(block, 0, checksumOffset), "version 0: never written");

        block.set(LONG, MEMBERS_EPOCH_OFFSET, 9);
        block.set(INT, MEMBERS_REPLICAS_OFFSET, 2);
        block.set(LONG, VERSION_OFFSET, 4);
        block.set(LONG, checksumOffset, checksum(block, 0, 4, checksumOffset));
        assertTrue(isSealed(block, 0, checksumOffset));

        block.set(LONG, VERSION_OFFSET, 5);
        assertFalse(isSealed(block, 0, checksumOffset), "an odd version: mid-write");
        block.set(LONG, VERSION_OFFSET, 4);
        block.set(INT, MEMBERS_OFFSET + MEMBER_STATE_OFFSET, 3);
        assertFalse(isSealed(block, 0, checksumOffset), "a field the checksum was not sealed with");
    }
}

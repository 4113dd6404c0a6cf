package io.dkv.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaSlots;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.dkv.raas.meta.MetaTableDescriptor.*;

/**
 * The writer of the tables in registered memory ({@link io.dkv.raas.meta.MetaTableDescriptor}).
 * Every slot is rewritten under its seqlock: version made odd, fields and checksum written,
 * version made even; readers on other nodes see either the whole old record or the whole new one.
 * One writer at a time (the caller serialises).
 */
final class MetaTables
{
    private final MemorySegment memory;
    private final int nodeSlots;
    private final int regionSlots;
    private final long membersBase;
    private int nodeProbeLimit;
    private int regionProbeLimit;

    /**
     * Lay out empty tables over {@code memory}.
     */
    MetaTables(final MemorySegment memory, final int nodeSlots, final int regionSlots, final long serverNodeId,
        final long epoch)
    {
        if (Integer.bitCount(nodeSlots) != 1 || Integer.bitCount(regionSlots) != 1)
        {
            throw new IllegalArgumentException("slot counts must be powers of two, got " + nodeSlots + " and " +
                regionSlots);
        }
        final long length = regionLength(nodeSlots, regionSlots);
        if (memory.byteSize() < length)
        {
            throw new IllegalArgumentException("tables of " + length + " bytes do not fit " + memory.byteSize() +
                " bytes");
        }
        this.memory = memory;
        this.nodeSlots = nodeSlots;
        this.regionSlots = regionSlots;
        this.membersBase = membersOffset(nodeSlots, regionSlots);
        memory.asSlice(0, length).fill((byte)0);
        memory.set(INT, LAYOUT_VERSION_OFFSET, LAYOUT_VERSION);
        memory.set(INT, NODE_SLOTS_OFFSET, nodeSlots);
        memory.set(INT, REGION_SLOTS_OFFSET, regionSlots);
        memory.set(INT, MEMBER_SLOTS_OFFSET, MEMBER_SLOTS);
        memory.set(LONG, SERVER_NODE_ID_OFFSET, serverNodeId);
        memory.set(LONG, EPOCH_OFFSET, epoch);
        VarHandle.releaseFence();
        // the magic last: a reader that sees it sees a laid-out header
        memory.set(LONG, MAGIC_OFFSET, MAGIC);
    }

    MemorySegment memory()
    {
        return memory;
    }

    long epoch()
    {
        return memory.get(LONG, EPOCH_OFFSET);
    }

    /** Publish a new epoch, after the slots it covers were written. */
    void epoch(final long epoch)
    {
        VarHandle.releaseFence();
        memory.set(LONG, EPOCH_OFFSET, epoch);
    }

    // ---------------------------------------------------------------------------------------------
    // nodes

    /**
     * Insert or overwrite the node's record.
     *
     * @return false when the table has no free slot.
     */
    boolean putNode(final NodeRecord node)
    {
        int slot = findNode(node.id());
        if (slot < 0)
        {
            slot = claim(nodeHome(node.id(), nodeSlots), nodeSlots, true);
            if (slot < 0)
            {
                return false;
            }
        }
        final long base = nodeSlotOffset(slot);
        final long version = beginWrite(base);
        MetaSlots.encodeNode(memory, base, STATE_LIVE, node);
        endWrite(base, version, NODE_CHECKSUM_OFFSET);
        return true;
    }

    /**
     * @return false when no live record of the node is here.
     */
    boolean removeNode(final long nodeId)
    {
        final int slot = findNode(nodeId);
        if (slot < 0)
        {
            return false;
        }
        tombstone(nodeSlotOffset(slot), NODE_CHECKSUM_OFFSET);
        return true;
    }

    /** @return the slot of the node's live record, or -1. */
    int findNode(final long nodeId)
    {
        final int home = nodeHome(nodeId, nodeSlots);
        for (int i = 0; i <= nodeProbeLimit; i++)
        {
            final int slot = (home + i) & (nodeSlots - 1);
            final long base = nodeSlotOffset(slot);
            final int state = memory.get(INT, base + STATE_OFFSET);
            if (state == STATE_EMPTY)
            {
                return -1;
            }
            if (state == STATE_LIVE && MetaSlots.nodeId(memory, base) == nodeId)
            {
                return slot;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------------------------------------
    // regions

    /**
     * Insert or overwrite the region's descriptor.
     *
     * @return false when the table has no free slot.
     */
    boolean putRegion(final RemoteRegion region)
    {
        final byte[] name = region.name().getBytes(StandardCharsets.UTF_8);
        int slot = findRegion(name);
        if (slot < 0)
        {
            slot = claim(regionHome(nameHash(name), regionSlots), regionSlots, false);
            if (slot < 0)
            {
                return false;
            }
        }
        final long base = regionSlotOffset(nodeSlots, slot);
        final long version = beginWrite(base);
        MetaSlots.encodeRegion(memory, base, STATE_LIVE, region, name);
        endWrite(base, version, REGION_CHECKSUM_OFFSET);
        return true;
    }

    /**
     * @return false when no region of that name is here.
     */
    boolean removeRegion(final String name)
    {
        final int slot = findRegion(name.getBytes(StandardCharsets.UTF_8));
        if (slot < 0)
        {
            return false;
        }
        tombstone(regionSlotOffset(nodeSlots, slot), REGION_CHECKSUM_OFFSET);
        return true;
    }

    private int findRegion(final byte[] name)
    {
        final int hash = nameHash(name);
        final int home = regionHome(hash, regionSlots);
        for (int i = 0; i <= regionProbeLimit; i++)
        {
            final int slot = (home + i) & (regionSlots - 1);
            final long base = regionSlotOffset(nodeSlots, slot);
            final int state = memory.get(INT, base + STATE_OFFSET);
            if (state == STATE_EMPTY)
            {
                return -1;
            }
            if (state == STATE_LIVE && MetaSlots.hasName(memory, base, name, hash))
            {
                return slot;
            }
        }
        return -1;
    }

    // ---------------------------------------------------------------------------------------------
    // members

    /** Rewrite the members block whole, under its seqlock. */
    void putMembership(final MembershipRecord membership)
    {
        final List<MemberRecord> members = membership.members();
        if (members.size() > MEMBER_SLOTS)
        {
            throw new IllegalArgumentException("membership of epoch " + membership.epoch() + " has " + members.size() +
                " members, the tables hold " + MEMBER_SLOTS);
        }
        final int checksumOffset = membersChecksumOffset(MEMBER_SLOTS);
        final long version = beginWrite(membersBase);
        memory.set(LONG, membersBase + MEMBERS_EPOCH_OFFSET, membership.epoch());
        memory.set(INT, membersBase + MEMBERS_REPLICAS_OFFSET, membership.replicas());
        memory.set(INT, membersBase + MEMBERS_COUNT_OFFSET, members.size());
        memory.set(INT, membersBase + MEMBERS_PHASE_OFFSET, membership.phase());
        memory.asSlice(membersBase + MEMBERS_OFFSET, (long)MEMBER_SLOTS * MEMBER_LENGTH).fill((byte)0);
        for (int i = 0; i < members.size(); i++)
        {
            final MemberRecord member = members.get(i);
            final long base = membersBase + MEMBERS_OFFSET + (long)i * MEMBER_LENGTH;
            memory.set(LONG, base + MEMBER_NODE_ID_OFFSET, member.nodeId());
            memory.set(LONG, base + MEMBER_INCARNATION_OFFSET, member.incarnation());
            memory.set(INT, base + MEMBER_STATE_OFFSET, member.state());
            memory.set(INT, base + MEMBER_PLACEMENT_OFFSET, member.placement());
            memory.set(LONG, base + MEMBER_LEFT_LIVE_OFFSET, member.leftLive());
        }
        endWrite(membersBase, version, checksumOffset);
    }

    // ---------------------------------------------------------------------------------------------
    // slots

    /**
     * Find the first slot from home that holds no live record, and raise the probe limit to cover
     * it before anything is written there, so a reader never stops short of a record.
     *
     * @return the slot, or -1 when every slot is live.
     */
    private int claim(final int home, final int slots, final boolean nodes)
    {
        for (int i = 0; i < slots; i++)
        {
            final int slot = (home + i) & (slots - 1);
            final long base = nodes ? nodeSlotOffset(slot) : regionSlotOffset(nodeSlots, slot);
            if (memory.get(INT, base + STATE_OFFSET) != STATE_LIVE)
            {
                if (nodes && i > nodeProbeLimit)
                {
                    nodeProbeLimit = i;
                    memory.set(INT, NODE_PROBE_LIMIT_OFFSET, i);
                }
                else if (!nodes && i > regionProbeLimit)
                {
                    regionProbeLimit = i;
                    memory.set(INT, REGION_PROBE_LIMIT_OFFSET, i);
                }
                return slot;
            }
        }
        return -1;
    }

    /**
     * Make the slot's version odd: readers that copy it from now on discard the copy.
     *
     * @return the even version to publish when done.
     */
    private long beginWrite(final long base)
    {
        final long current = memory.get(LONG, base + VERSION_OFFSET);
        final long odd = (current | 1) == current ? current + 2 : current + 1;
        memory.set(LONG, base + VERSION_OFFSET, odd);
        VarHandle.storeStoreFence();
        return odd + 1;
    }

    private void endWrite(final long base, final long version, final int checksumOffset)
    {
        memory.set(LONG, base + checksumOffset, checksum(memory, base, version, checksumOffset));
        VarHandle.storeStoreFence();
        memory.set(LONG, base + VERSION_OFFSET, version);
    }

    private void tombstone(final long base, final int checksumOffset)
    {
        final long version = beginWrite(base);
        memory.set(INT, base + STATE_OFFSET, STATE_REMOVED);
        endWrite(base, version, checksumOffset);
    }
}

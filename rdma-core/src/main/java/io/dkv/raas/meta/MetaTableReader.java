package io.dkv.raas.meta;

import io.dkv.raas.Connection;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.meta.MetaTableDescriptor.*;

/**
 * Looks records up in a MetaServer's tables with one-sided READs, as {@link MetaTableDescriptor}
 * lays them out: a lookup usually costs one READ of the home slot and the few after it; a slot
 * copied mid-write is read again until a copy of one published write arrives. Allocates only the
 * record it returns. Not thread-safe: one caller at a time.
 */
public final class MetaTableReader
{
    /** Slots read by one READ while probing. */
    public static final int PROBE_BATCH = 8;
    /** Reads of one slot before a writer that never finishes is reported. */
    public static final int TORN_RETRIES = 100_000;
    private static final int SPINS_BEFORE_YIELD = 64;
    /** Bytes of registered memory a reader needs: a probe's slots, or the largest members block, in one READ. */
    public static final int BUFFER_BYTES = Math.max(PROBE_BATCH * REGION_SLOT_LENGTH, membersLength(MAX_MEMBER_SLOTS));

    private final Connection connection;
    private final RemoteRegion tables;
    private final MemorySegment buffer;
    private final int tornRetries;
    private int nodeSlots;
    private int regionSlots;
    private int memberSlots;
    private int nodeProbeLimit;
    private int regionProbeLimit;
    private long epoch;
    private volatile long reads;
    private volatile long tornReads;

    /**
     * @param connection a connection to the MetaServer.
     * @param tables     its table region, as its bootstrap RPC describes it.
     * @param buffer     at least {@link #BUFFER_BYTES} of registered memory the READs land in.
     */
    public MetaTableReader(final Connection connection, final RemoteRegion tables, final MemorySegment buffer)
    {
        this(connection, tables, buffer, TORN_RETRIES);
    }

    /**
     * @param tornRetries reads of a slot found mid-write before the lookup gives up.
     */
    public MetaTableReader(final Connection connection, final RemoteRegion tables, final MemorySegment buffer,
        final int tornRetries)
    {
        if (tornRetries < 1)
        {
            throw new IllegalArgumentException("tornRetries " + tornRetries + " must be at least 1");
        }
        if (buffer.byteSize() < BUFFER_BYTES)
        {
            throw new IllegalArgumentException("reader buffer of " + buffer.byteSize() + " bytes is smaller than " +
                BUFFER_BYTES);
        }
        this.connection = connection;
        this.tables = tables;
        this.buffer = buffer;
        this.tornRetries = tornRetries;
    }

    /**
     * Read and check the header: magic, layout version and the table sizes.
     *
     * @throws RaasException when the region does not hold tables of this layout.
     */
    public void readHeader()
    {
        read(0, HEADER_LENGTH, 0);
        final long magic = buffer.get(LONG, MAGIC_OFFSET);
        final int layout = buffer.get(INT, LAYOUT_VERSION_OFFSET);
        final int nodes = buffer.get(INT, NODE_SLOTS_OFFSET);
        final int regions = buffer.get(INT, REGION_SLOTS_OFFSET);
        final int members = buffer.get(INT, MEMBER_SLOTS_OFFSET);
        if (magic != MAGIC || layout != LAYOUT_VERSION)
        {
            throw new RaasException(String.format("region '%s' on node %d holds no MetaServer tables of layout %d " +
                "(magic 0x%x, layout %d)",
                tables.name(), tables.nodeId(), LAYOUT_VERSION, magic, layout));
        }
        if (Integer.bitCount(nodes) != 1 || Integer.bitCount(regions) != 1 || members < 0 ||
            members > MAX_MEMBER_SLOTS || regionLength(nodes, regions, members) > tables.length())
        {
            throw new RaasException("MetaServer tables of " + nodes + " node, " + regions + " region and " + members +
                " member slots do not fit region " + tables);
        }
        nodeSlots = nodes;
        regionSlots = regions;
        memberSlots = members;
        epoch = buffer.get(LONG, EPOCH_OFFSET);
        nodeProbeLimit = clampLimit(buffer.get(INT, NODE_PROBE_LIMIT_OFFSET), nodes);
        regionProbeLimit = clampLimit(buffer.get(INT, REGION_PROBE_LIMIT_OFFSET), regions);
    }

    /**
     * One 16-byte READ of the epoch and probe limits.
     *
     * @return the table epoch now.
     */
    public long refreshEpoch()
    {
        read(EPOCH_OFFSET, EPOCH_READ_LENGTH, 0);
        epoch = buffer.get(LONG, 0);
        nodeProbeLimit = clampLimit(buffer.get(INT, NODE_PROBE_LIMIT_OFFSET - EPOCH_OFFSET), nodeSlots);
        regionProbeLimit = clampLimit(buffer.get(INT, REGION_PROBE_LIMIT_OFFSET - EPOCH_OFFSET), regionSlots);
        return epoch;
    }

    private static int clampLimit(final int limit, final int slots)
    {
        return Math.max(0, Math.min(limit, slots - 1));
    }

    /** @return the epoch of the last header or epoch read. */
    public long epoch()
    {
        return epoch;
    }

    /** @return both probe limits in one word, to tell whether a header read moved them. */
    public long probeLimits()
    {
        return ((long)nodeProbeLimit << 32) | regionProbeLimit;
    }

    /** @return READs issued so far (any thread may look). */
    public long reads()
    {
        return reads;
    }

    /** @return slot copies found mixing two writes (and read again) so far. */
    public long tornReads()
    {
        return tornReads;
    }

    /**
     * @return the node's record, or null when the table holds no live record of it.
     */
    public NodeRecord node(final long nodeId)
    {
        final int mask = nodeSlots - 1;
        final int home = nodeHome(nodeId, nodeSlots);
        final int limit = nodeProbeLimit;
        int probed = 0;
        while (probed <= limit)
        {
            final int first = (home + probed) & mask;
            final int run = Math.min(Math.min(PROBE_BATCH, limit + 1 - probed), nodeSlots - first);
            read(nodeSlotOffset(first), run * NODE_SLOT_LENGTH, 0);
            for (int i = 0; i < run; i++)
            {
                final long base = (long)i * NODE_SLOT_LENGTH;
                final int state = nodeSlotState(first + i, base);
                if (state == STATE_EMPTY)
                {
                    return null;
                }
                if (state == STATE_LIVE && MetaSlots.nodeId(buffer, base) == nodeId)
                {
                    return MetaSlots.decodeNode(buffer, base);
                }
            }
            probed += run;
        }
        return null;
    }

    /**
     * Walk the whole node table.
     *
     * @return the live nodes of the role, in table order.
     */
    public List<NodeRecord> nodes(final int role)
    {
        final List<NodeRecord> found = new ArrayList<>();
        for (int first = 0; first < nodeSlots; first += PROBE_BATCH)
        {
            final int run = Math.min(PROBE_BATCH, nodeSlots - first);
            read(nodeSlotOffset(first), run * NODE_SLOT_LENGTH, 0);
            for (int i = 0; i < run; i++)
            {
                final long base = (long)i * NODE_SLOT_LENGTH;
                if (nodeSlotState(first + i, base) == STATE_LIVE)
                {
                    final NodeRecord node = MetaSlots.decodeNode(buffer, base);
                    if (node.role() == role)
                    {
                        found.add(node);
                    }
                }
            }
        }
        return found;
    }

    /**
     * @return the region published under the name, or null.
     */
    public RemoteRegion region(final String name)
    {
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > REGION_NAME_MAX)
        {
            return null;
        }
        final int hash = nameHash(utf8);
        final int mask = regionSlots - 1;
        final int home = regionHome(hash, regionSlots);
        final int limit = regionProbeLimit;
        int probed = 0;
        while (probed <= limit)
        {
            final int first = (home + probed) & mask;
            final int run = Math.min(Math.min(PROBE_BATCH, limit + 1 - probed), regionSlots - first);
            read(regionSlotOffset(nodeSlots, first), run * REGION_SLOT_LENGTH, 0);
            for (int i = 0; i < run; i++)
            {
                final long base = (long)i * REGION_SLOT_LENGTH;
                int state = readState(buffer, base, REGION_CHECKSUM_OFFSET);
                if (state == TORN)
                {
                    state = reread(regionSlotOffset(nodeSlots, first + i), REGION_SLOT_LENGTH, base,
                        REGION_CHECKSUM_OFFSET);
                }
                if (state == STATE_EMPTY)
                {
                    return null;
                }
                if (state == STATE_LIVE && MetaSlots.hasName(buffer, base, utf8, hash))
                {
                    return MetaSlots.decodeRegion(buffer, base);
                }
            }
            probed += run;
        }
        return null;
    }

    /**
     * One READ of the members block, read again while it was copied mid-write.
     *
     * @return the memory tier's membership; epoch 0, one copy and no members while the server has
     * written none.
     * @throws RaasException when the block holds what no MetaServer writes.
     */
    public MembershipRecord membership()
    {
        final long offset = membersOffset(nodeSlots, regionSlots);
        final int length = membersLength(memberSlots);
        final int checksumOffset = membersChecksumOffset(memberSlots);
        read(offset, length, 0);
        for (int attempt = 0; !isSealed(buffer, 0, checksumOffset); attempt++)
        {
            if (buffer.get(LONG, VERSION_OFFSET) == 0)
            {
                return new MembershipRecord(0, 1, List.of());
            }
            if (attempt == tornRetries)
            {
                throw new RaasException("members block at offset " + offset + " of region '" + tables.name() +
                    "' on node " + tables.nodeId() + " was mid-write in " + tornRetries + " reads");
            }
            tornReads++;
            pause(attempt);
            read(offset, length, 0);
        }
        final int count = buffer.get(INT, MEMBERS_COUNT_OFFSET);
        final int replicas = buffer.get(INT, MEMBERS_REPLICAS_OFFSET);
        final int phase = buffer.get(INT, MEMBERS_PHASE_OFFSET);
        if (count < 0 || count > memberSlots || replicas < 1 || phase < Membership.STEADY || phase > Membership.CLEANUP)
        {
            throw new RaasException("members block of region '" + tables.name() + "' on node " + tables.nodeId() +
                " holds " + count + " members of " + memberSlots + " slots, " + replicas + " replicas and phase " +
                phase);
        }
        final List<MemberRecord> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final long base = MEMBERS_OFFSET + (long)i * MEMBER_LENGTH;
            final long nodeId = buffer.get(LONG, base + MEMBER_NODE_ID_OFFSET);
            final int state = buffer.get(INT, base + MEMBER_STATE_OFFSET);
            try
            {
                final int placement = buffer.get(INT, base + MEMBER_PLACEMENT_OFFSET);
                if (placement == MemberRecord.REMOVED)
                {
                    throw new IllegalArgumentException("member " + nodeId + " has no placement");
                }
                members.add(new MemberRecord(nodeId, state, buffer.get(LONG, base + MEMBER_INCARNATION_OFFSET),
                    placement, buffer.get(LONG, base + MEMBER_LEFT_LIVE_OFFSET)));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RaasException("members block of region '" + tables.name() + "' on node " +
                    tables.nodeId() + ": " + ex.getMessage(), ex);
            }
        }
        return new MembershipRecord(buffer.get(LONG, MEMBERS_EPOCH_OFFSET), replicas, members, phase);
    }

    /** @return the state of the node slot read into the buffer at {@code base}, read again while torn. */
    private int nodeSlotState(final int slot, final long base)
    {
        final int state = readState(buffer, base, NODE_CHECKSUM_OFFSET);
        return state == TORN ? reread(nodeSlotOffset(slot), NODE_SLOT_LENGTH, base, NODE_CHECKSUM_OFFSET) : state;
    }

    private int reread(final long offset, final int length, final long into, final int checksumOffset)
    {
        for (int attempt = 0; attempt < tornRetries; attempt++)
        {
            tornReads++;
            pause(attempt);
            read(offset, length, into);
            final int state = readState(buffer, into, checksumOffset);
            if (state != TORN)
            {
                return state;
            }
        }
        throw new RaasException("slot at offset " + offset + " of region '" + tables.name() + "' on node " +
            tables.nodeId() +
            " was mid-write in " + tornRetries + " reads");
    }

    /**
     * Between reads of a slot found mid-write: spin a little, then yield, so that a writer descheduled mid-write on a
     * busy machine (two cores, the reader spinning on one) gets a core to finish on.
     */
    private static void pause(final int attempt)
    {
        if (attempt < SPINS_BEFORE_YIELD)
        {
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    private void read(final long offset, final int length, final long into)
    {
        reads++;
        connection.read(tables, offset, buffer, into, length);
    }
}

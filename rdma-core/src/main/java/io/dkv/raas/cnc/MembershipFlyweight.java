package io.dkv.raas.cnc;

import io.dkv.raas.Membership;
import org.agrona.MutableDirectBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * MEMBERSHIP: the memory tier's membership as the driver's directory keeps it, written by the driver
 * into the client's data area (see {@link CommandDescriptor}), laid out as:
 *
 * <pre>
 *   0  epoch     long
 *   8  replicas  int
 *  12  members   int
 *  16  phase     int    STEADY 0, FILL 1, SWITCH 2, HANDOVER 3, CLEANUP 4
 *  20  reserved  int
 *  24  per member, 24 bytes:
 *        0  nodeId       long
 *        8  state        int
 *       12  placement    int    PLACED_BEFORE 1, PLACED_AFTER 2, PLACED 3
 *       16  incarnation  long
 * </pre>
 */
public final class MembershipFlyweight extends CorrelatedFlyweight
{
    public static final int DATA_EPOCH_OFFSET = 0;
    public static final int DATA_REPLICAS_OFFSET = 8;
    public static final int DATA_COUNT_OFFSET = 12;
    public static final int DATA_PHASE_OFFSET = 16;
    public static final int DATA_HEADER_LENGTH = 24;
    public static final int MEMBER_NODE_ID_OFFSET = 0;
    public static final int MEMBER_STATE_OFFSET = 8;
    public static final int MEMBER_PLACEMENT_OFFSET = 12;
    public static final int MEMBER_INCARNATION_OFFSET = 16;
    public static final int DATA_MEMBER_LENGTH = 24;
    /** Members a client can be told of: the MetaServer's table holds 64. */
    public static final int MAX_MEMBERS = 64;
    public static final int MAX_DATA_LENGTH = DATA_HEADER_LENGTH + MAX_MEMBERS * DATA_MEMBER_LENGTH;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    public MembershipFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int maxLength()
    {
        return buffer.getInt(offset + MEMBERSHIP_MAX_LENGTH_OFFSET);
    }

    public MembershipFlyweight maxLength(final int maxLength)
    {
        buffer.putInt(offset + MEMBERSHIP_MAX_LENGTH_OFFSET, maxLength);
        return this;
    }

    public long dataOffset()
    {
        return buffer.getLong(offset + MEMBERSHIP_DATA_OFFSET);
    }

    public MembershipFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + MEMBERSHIP_DATA_OFFSET, dataOffset);
        return this;
    }

    /**
     * Write a membership into a data area.
     *
     * @return the bytes written.
     * @throws IllegalArgumentException when it does not fit {@code maxLength}, naming both.
     */
    public static int encode(final Membership membership, final MemorySegment data, final long at,
        final int maxLength)
    {
        final long[] ids = membership.memberIds();
        final int[] states = membership.states();
        final long[] incarnations = membership.incarnations();
        final int[] placements = membership.placements();
        final int length = DATA_HEADER_LENGTH + ids.length * DATA_MEMBER_LENGTH;
        if (length > maxLength)
        {
            throw new IllegalArgumentException("a membership of " + ids.length + " members takes " + length +
                " bytes, more than the " + maxLength + " the client gave");
        }
        data.set(LONG, at + DATA_EPOCH_OFFSET, membership.epoch());
        data.set(INT, at + DATA_REPLICAS_OFFSET, membership.replicas());
        data.set(INT, at + DATA_COUNT_OFFSET, ids.length);
        data.set(INT, at + DATA_PHASE_OFFSET, membership.phase());
        data.set(INT, at + DATA_PHASE_OFFSET + 4, 0);
        for (int i = 0; i < ids.length; i++)
        {
            final long base = at + DATA_HEADER_LENGTH + (long)i * DATA_MEMBER_LENGTH;
            data.set(LONG, base + MEMBER_NODE_ID_OFFSET, ids[i]);
            data.set(INT, base + MEMBER_STATE_OFFSET, states[i]);
            data.set(INT, base + MEMBER_PLACEMENT_OFFSET, placements[i]);
            data.set(LONG, base + MEMBER_INCARNATION_OFFSET, incarnations[i]);
        }
        return length;
    }

    /** @return the membership {@link #encode} wrote there, {@code length} bytes. */
    public static Membership decode(final MemorySegment data, final long at, final int length)
    {
        final int count = data.get(INT, at + DATA_COUNT_OFFSET);
        if (count < 0 || DATA_HEADER_LENGTH + (long)count * DATA_MEMBER_LENGTH != length)
        {
            throw new IllegalArgumentException("a membership of " + length + " bytes cannot hold " + count +
                " members");
        }
        final long[] ids = new long[count];
        final int[] states = new int[count];
        final long[] incarnations = new long[count];
        final int[] placements = new int[count];
        for (int i = 0; i < count; i++)
        {
            final long base = at + DATA_HEADER_LENGTH + (long)i * DATA_MEMBER_LENGTH;
            ids[i] = data.get(LONG, base + MEMBER_NODE_ID_OFFSET);
            states[i] = data.get(INT, base + MEMBER_STATE_OFFSET);
            placements[i] = data.get(INT, base + MEMBER_PLACEMENT_OFFSET);
            incarnations[i] = data.get(LONG, base + MEMBER_INCARNATION_OFFSET);
        }
        return new Membership(data.get(LONG, at + DATA_EPOCH_OFFSET), data.get(INT, at + DATA_REPLICAS_OFFSET), ids,
            states, incarnations, placements, data.get(INT, at + DATA_PHASE_OFFSET));
    }
}

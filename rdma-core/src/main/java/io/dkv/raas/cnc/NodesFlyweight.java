package io.dkv.raas.cnc;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.meta.MetaSlots;
import io.dkv.raas.meta.MetaTableDescriptor;
import org.agrona.MutableDirectBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.cnc.CommandDescriptor.NODES_DATA_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.NODES_MAX_LENGTH_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.NODES_ROLE_OFFSET;

/**
 * NODES: the live nodes of a role as the driver's directory lists them, written by the driver into the client's data
 * area (see {@link CommandDescriptor}), laid out as:
 *
 * <pre>
 *   0  count     int
 *   4  reserved  int
 *   8  per node, one node slot of the MetaServer's table ({@link MetaTableDescriptor#NODE_SLOT_LENGTH} bytes, written
 *      and read by {@link MetaSlots}): id, role, DC target and key, epoch, lease, provider and address
 * </pre>
 */
public final class NodesFlyweight extends CorrelatedFlyweight
{
    public static final int DATA_COUNT_OFFSET = 0;
    public static final int DATA_HEADER_LENGTH = 8;
    public static final int DATA_NODE_LENGTH = MetaTableDescriptor.NODE_SLOT_LENGTH;
    /** Nodes of one role a client can be told of at once. */
    public static final int MAX_NODES = 1024;
    public static final int MAX_DATA_LENGTH = DATA_HEADER_LENGTH + MAX_NODES * DATA_NODE_LENGTH;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    public NodesFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int role()
    {
        return buffer.getInt(offset + NODES_ROLE_OFFSET);
    }

    public NodesFlyweight role(final int role)
    {
        buffer.putInt(offset + NODES_ROLE_OFFSET, role);
        return this;
    }

    public int maxLength()
    {
        return buffer.getInt(offset + NODES_MAX_LENGTH_OFFSET);
    }

    public NodesFlyweight maxLength(final int maxLength)
    {
        buffer.putInt(offset + NODES_MAX_LENGTH_OFFSET, maxLength);
        return this;
    }

    public long dataOffset()
    {
        return buffer.getLong(offset + NODES_DATA_OFFSET);
    }

    public NodesFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + NODES_DATA_OFFSET, dataOffset);
        return this;
    }

    /**
     * Write nodes into a data area.
     *
     * @return the bytes written.
     * @throws IllegalArgumentException when they do not fit {@code maxLength}, or an address does not fit a slot,
     *                                  naming the values.
     */
    public static int encode(final List<NodeRecord> nodes, final MemorySegment data, final long at, final int maxLength)
    {
        final int length = DATA_HEADER_LENGTH + nodes.size() * DATA_NODE_LENGTH;
        if (length > maxLength)
        {
            throw new IllegalArgumentException(nodes.size() + " nodes take " + length + " bytes, more than the " +
                maxLength + " the client gave");
        }
        data.set(INT, at + DATA_COUNT_OFFSET, nodes.size());
        data.set(INT, at + DATA_COUNT_OFFSET + 4, 0);
        for (int i = 0; i < nodes.size(); i++)
        {
            MetaSlots.encodeNode(data, at + DATA_HEADER_LENGTH + (long)i * DATA_NODE_LENGTH,
                MetaTableDescriptor.STATE_LIVE, nodes.get(i));
        }
        return length;
    }

    /** @return the nodes {@link #encode} wrote there, {@code length} bytes. */
    public static List<NodeRecord> decode(final MemorySegment data, final long at, final int length)
    {
        final int count = data.get(INT, at + DATA_COUNT_OFFSET);
        if (count < 0 || DATA_HEADER_LENGTH + (long)count * DATA_NODE_LENGTH != length)
        {
            throw new IllegalArgumentException(length + " bytes of nodes cannot hold " + count + " nodes");
        }
        final List<NodeRecord> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            nodes.add(MetaSlots.decodeNode(data, at + DATA_HEADER_LENGTH + (long)i * DATA_NODE_LENGTH));
        }
        return nodes;
    }
}

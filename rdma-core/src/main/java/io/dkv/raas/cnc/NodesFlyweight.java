package io.dkv.raas.cnc;

import io.dkv.raas.NodeRecord;
import io.dkv.verbs.PortAddress;
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
 *   0  count         int
 *   4  reserved      int
 *   8  per node, 72 bytes:
 *        0  nodeId        long
 *        8  role          int
 *       12  dctNumber     int
 *       16  dcKey         long
 *       24  epoch         long
 *       32  leaseExpiry   long
 *       40  addressLength int
 *       44  address       24 bytes (the driver's provider's form)
 *       68  reserved      int
 * </pre>
 */
public final class NodesFlyweight extends CorrelatedFlyweight
{
    public static final int DATA_COUNT_OFFSET = 0;
    public static final int DATA_HEADER_LENGTH = 8;
    public static final int NODE_ID_OFFSET = 0;
    public static final int NODE_ROLE_OFFSET = 8;
    public static final int NODE_DCT_OFFSET = 12;
    public static final int NODE_DC_KEY_OFFSET = 16;
    public static final int NODE_EPOCH_OFFSET = 24;
    public static final int NODE_LEASE_OFFSET = 32;
    public static final int NODE_ADDRESS_LENGTH_OFFSET = 40;
    public static final int NODE_ADDRESS_OFFSET = 44;
    public static final int MAX_ADDRESS = 24;
    public static final int DATA_NODE_LENGTH = 72;
    /** Nodes of one role a client can be told of at once. */
    public static final int MAX_NODES = 1024;
    public static final int MAX_DATA_LENGTH = DATA_HEADER_LENGTH + MAX_NODES * DATA_NODE_LENGTH;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
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
     * @throws IllegalArgumentException when they do not fit {@code maxLength}, or an address is longer than
     *                                  {@link #MAX_ADDRESS}, naming the values.
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
            final NodeRecord node = nodes.get(i);
            final byte[] address = node.address().bytes();
            if (address.length > MAX_ADDRESS)
            {
                throw new IllegalArgumentException("node " + node.id() + "'s address " + node.address() + " takes " +
                    address.length + " bytes, more than " + MAX_ADDRESS);
            }
            final long base = at + DATA_HEADER_LENGTH + (long)i * DATA_NODE_LENGTH;
            data.set(LONG, base + NODE_ID_OFFSET, node.id());
            data.set(INT, base + NODE_ROLE_OFFSET, node.role());
            data.set(INT, base + NODE_DCT_OFFSET, node.dctNumber());
            data.set(LONG, base + NODE_DC_KEY_OFFSET, node.dcKey());
            data.set(LONG, base + NODE_EPOCH_OFFSET, node.epoch());
            data.set(LONG, base + NODE_LEASE_OFFSET, node.leaseExpiry());
            data.set(INT, base + NODE_ADDRESS_LENGTH_OFFSET, address.length);
            MemorySegment.copy(address, 0, data, ValueLayout.JAVA_BYTE, base + NODE_ADDRESS_OFFSET, address.length);
        }
        return length;
    }

    /**
     * @param provider the provider of the addresses (the driver's).
     * @return the nodes {@link #encode} wrote there, {@code length} bytes.
     */
    public static List<NodeRecord> decode(final MemorySegment data, final long at, final int length,
        final String provider)
    {
        final int count = data.get(INT, at + DATA_COUNT_OFFSET);
        if (count < 0 || DATA_HEADER_LENGTH + (long)count * DATA_NODE_LENGTH != length)
        {
            throw new IllegalArgumentException(length + " bytes of nodes cannot hold " + count + " nodes");
        }
        final List<NodeRecord> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final long base = at + DATA_HEADER_LENGTH + (long)i * DATA_NODE_LENGTH;
            final int addressLength = data.get(INT, base + NODE_ADDRESS_LENGTH_OFFSET);
            if (addressLength <= 0 || addressLength > MAX_ADDRESS)
            {
                throw new IllegalArgumentException("node " + i + " of " + count + " has an address of " +
                    addressLength + " bytes");
            }
            final byte[] address = new byte[addressLength];
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, base + NODE_ADDRESS_OFFSET, address, 0, addressLength);
            nodes.add(new NodeRecord(data.get(LONG, base + NODE_ID_OFFSET), data.get(INT, base + NODE_ROLE_OFFSET),
                PortAddress.of(provider, address), data.get(INT, base + NODE_DCT_OFFSET),
                data.get(LONG, base + NODE_DC_KEY_OFFSET), data.get(LONG, base + NODE_EPOCH_OFFSET),
                data.get(LONG, base + NODE_LEASE_OFFSET)));
        }
        return nodes;
    }
}

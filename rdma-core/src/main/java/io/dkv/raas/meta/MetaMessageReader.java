package io.dkv.raas.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.PortAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Reads one RPC frame ({@link MetaRpcDescriptor}) that may be anything a peer sent, wrapped without
 * its mac (checked before, by {@link MetaFrameAuthenticator#verify}): every read is bounds-checked, and whatever cannot
 * be a valid field ends in a {@link MetaRpcException} naming the status the reply should carry.
 */
public final class MetaMessageReader
{
    private static final ValueLayout.OfLong LONG = MetaTableDescriptor.LONG;
    private static final ValueLayout.OfInt INT = MetaTableDescriptor.INT;
    private static final ValueLayout.OfShort SHORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    private MemorySegment buffer;
    private long start;
    private long position;
    private long limit;

    /**
     * @param buffer where the frame is.
     * @param offset its first byte.
     * @param length its length.
     */
    public MetaMessageReader wrap(final MemorySegment buffer, final long offset, final int length)
    {
        this.buffer = buffer;
        this.start = offset;
        this.position = offset;
        this.limit = offset + length;
        return this;
    }

    public int length()
    {
        return (int)(limit - start);
    }

    // ---- header, at fixed offsets; valid once length() >= HEADER_LENGTH

    public byte type()
    {
        return buffer.get(ValueLayout.JAVA_BYTE, start + TYPE_OFFSET);
    }

    public byte version()
    {
        return buffer.get(ValueLayout.JAVA_BYTE, start + VERSION_OFFSET);
    }

    public short flags()
    {
        return buffer.get(SHORT, start + FLAGS_OFFSET);
    }

    public short status()
    {
        return buffer.get(SHORT, start + STATUS_OFFSET);
    }

    public int bodyLength()
    {
        return buffer.get(INT, start + BODY_LENGTH_OFFSET);
    }

    public long requestId()
    {
        return buffer.get(LONG, start + REQUEST_ID_OFFSET);
    }

    /** Move to the body, after checking the header's length against the frame's. */
    public MetaMessageReader body()
    {
        if (length() < HEADER_LENGTH)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "frame of " + length() + " bytes is shorter than the " + HEADER_LENGTH + "-byte header");
        }
        if (bodyLength() != length() - HEADER_LENGTH)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "header says " + bodyLength() + " body bytes, the frame has " + (length() - HEADER_LENGTH));
        }
        position = start + HEADER_LENGTH;
        return this;
    }

    public int remaining()
    {
        return (int)(limit - position);
    }

    /** @throws MetaRpcException when bytes are left after the last field. */
    public void requireEnd(final String what)
    {
        if (position != limit)
        {
            throw new MetaRpcException(STATUS_MALFORMED, what + " has " + remaining() + " bytes after its last field");
        }
    }

    public long getLong()
    {
        require(8);
        final long value = buffer.get(LONG, position);
        position += 8;
        return value;
    }

    public int getInt()
    {
        require(4);
        final int value = buffer.get(INT, position);
        position += 4;
        return value;
    }

    public short getShort()
    {
        require(2);
        final short value = buffer.get(SHORT, position);
        position += 2;
        return value;
    }

    public byte[] getBytes(final int length)
    {
        require(length);
        final byte[] bytes = new byte[length];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, position, bytes, 0, length);
        position += length;
        return bytes;
    }

    public long timestamp()
    {
        return buffer.get(LONG, start + TIMESTAMP_OFFSET);
    }

    /** @return a node's token, or null for the all-zero token (none). */
    public byte[] getToken()
    {
        final byte[] token = getBytes(TOKEN_LENGTH);
        for (final byte b : token)
        {
            if (b != 0)
            {
                return token;
            }
        }
        return null;
    }

    /** @return the rest of the frame as text (an error reply's message). */
    public String getRemainingText()
    {
        return new String(getBytes(remaining()), StandardCharsets.UTF_8);
    }

    public NodeRecord getNode()
    {
        final long id = getLong();
        final int role = getInt();
        final int dct = getInt();
        final long dcKey = getLong();
        final long epoch = getLong();
        final long leaseExpiry = getLong();
        final int providerLength = getShort();
        final int addressLength = getShort();
        if (providerLength < 1 || providerLength > MetaTableDescriptor.NODE_PROVIDER_MAX)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "node " + id + " has a provider name of " + providerLength + " bytes");
        }
        if (addressLength < 1 || addressLength > MetaTableDescriptor.NODE_ADDRESS_MAX)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "node " + id + " has an address of " + addressLength + " bytes");
        }
        final byte[] provider = getBytes(providerLength);
        for (final byte b : provider)
        {
            if (!((b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '-' || b == '_'))
            {
                throw new MetaRpcException(STATUS_MALFORMED,
                    "node " + id + " has a provider name that is not [a-z0-9_-]");
            }
        }
        final byte[] address = getBytes(addressLength);
        if (id == 0)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "node id 0 is reserved");
        }
        try
        {
            return new NodeRecord(id, role, PortAddress.of(new String(provider, StandardCharsets.US_ASCII), address),
                dct, dcKey,
                epoch, leaseExpiry);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "node " + id + ": " + ex.getMessage());
        }
    }

    public RemoteRegion getRegion()
    {
        final long nodeId = getLong();
        final long nodeEpoch = getLong();
        final long address = getLong();
        final long length = getLong();
        final int rkey = getInt();
        final int access = getInt();
        final int layoutVersion = getInt();
        final String name = getName();
        if (length <= 0)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "region '" + name + "' has length " + length);
        }
        if (nodeId == 0)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "region '" + name + "' names node 0");
        }
        try
        {
            return new RemoteRegion(name, nodeId, nodeEpoch, address, rkey, length, access, layoutVersion);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new MetaRpcException(STATUS_MALFORMED, ex.getMessage());
        }
    }

    /**
     * @return a membership, whole or the members a change touched.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_MALFORMED} for more members than
     *                          tables hold, a replica count below 1, a phase, state or placement no membership has.
     */
    public MembershipRecord getMembership()
    {
        final long epoch = getLong();
        final int replicas = getInt();
        final int phase = getInt();
        final int word = getInt();
        final boolean withLeftLive = (word & MetaRpcDescriptor.MEMBERS_LEFT_LIVE) != 0;
        final int count = word & ~MetaRpcDescriptor.MEMBERS_LEFT_LIVE;
        if (count < 0 || count > MetaTableDescriptor.MAX_MEMBER_SLOTS || replicas < 1)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "membership of epoch " + epoch + " with " + count + " members and " + replicas + " replicas");
        }
        final java.util.List<MemberRecord> members = new java.util.ArrayList<>(count);
        try
        {
            for (int i = 0; i < count; i++)
            {
                final long nodeId = getLong();
                final int state = getInt();
                final long incarnation = getLong();
                final int placement = getInt();
                members.add(new MemberRecord(nodeId, state, incarnation, placement, withLeftLive ? getLong() : 0));
            }
            return new MembershipRecord(epoch, replicas, members, phase);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new MetaRpcException(STATUS_MALFORMED, ex.getMessage());
        }
    }

    /**
     * @return the memory nodes that founded the store.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_MALFORMED} for none, or more than a membership
     *                          holds.
     */
    public long[] getFounders()
    {
        final int count = getInt();
        if (count < 1 || count > MetaTableDescriptor.MAX_MEMBER_SLOTS)
        {
            throw new MetaRpcException(STATUS_MALFORMED, count + " founders of a store; it has 1 to " +
                MetaTableDescriptor.MAX_MEMBER_SLOTS);
        }
        final long[] founders = new long[count];
        for (int i = 0; i < count; i++)
        {
            founders[i] = getLong();
        }
        return founders;
    }

    public String getName()
    {
        final int length = getInt();
        if (length < 0)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "name length " + length);
        }
        if (length > MAX_NAME_BYTES)
        {
            throw new MetaRpcException(STATUS_NAME_TOO_LONG, "name of " + length + " bytes exceeds " + MAX_NAME_BYTES);
        }
        final byte[] bytes = getBytes(length);
        try
        {
            return utf8.reset().decode(ByteBuffer.wrap(bytes)).toString();
        }
        catch (final CharacterCodingException ex)
        {
            throw new MetaRpcException(STATUS_MALFORMED, "name of " + length + " bytes is not UTF-8");
        }
    }

    private void require(final long bytes)
    {
        if (bytes < 0 || position + bytes > limit)
        {
            throw new MetaRpcException(STATUS_MALFORMED,
                "field of " + bytes + " bytes at offset " + (position - start) + " runs past the " + length() +
                "-byte frame");
        }
    }
}

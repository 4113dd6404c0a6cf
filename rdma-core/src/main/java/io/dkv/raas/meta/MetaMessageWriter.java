package io.dkv.raas.meta;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static io.dkv.raas.meta.MetaRpcDescriptor.*;

/**
 * Writes one RPC frame ({@link MetaRpcDescriptor}) into a buffer the caller reuses, leaving room for
 * the mac that {@link MetaFrameAuthenticator#seal} appends once the frame is finished.
 */
public final class MetaMessageWriter
{
    private static final ValueLayout.OfLong LONG = MetaTableDescriptor.LONG;
    private static final ValueLayout.OfInt INT = MetaTableDescriptor.INT;
    private static final ValueLayout.OfShort SHORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private MemorySegment buffer;
    private int position;

    public MetaMessageWriter wrap(final MemorySegment buffer)
    {
        this.buffer = buffer;
        this.position = 0;
        return this;
    }

    public MemorySegment buffer()
    {
        return buffer;
    }

    /** Start a request frame. */
    public MetaMessageWriter request(final byte type, final short flags, final long requestId)
    {
        return header(type, flags, requestId);
    }

    /** Start a reply frame. */
    public MetaMessageWriter reply(final short status, final long requestId)
    {
        return header(TYPE_REPLY, status, requestId);
    }

    private MetaMessageWriter header(final byte type, final short flagsOrStatus, final long requestId)
    {
        ensure(HEADER_LENGTH);
        buffer.set(ValueLayout.JAVA_BYTE, TYPE_OFFSET, type);
        buffer.set(ValueLayout.JAVA_BYTE, VERSION_OFFSET, PROTOCOL_VERSION);
        buffer.set(SHORT, FLAGS_OFFSET, flagsOrStatus);
        buffer.set(INT, BODY_LENGTH_OFFSET, 0);
        buffer.set(LONG, REQUEST_ID_OFFSET, requestId);
        buffer.set(LONG, TIMESTAMP_OFFSET, 0L);
        position = HEADER_LENGTH;
        return this;
    }

    /** Set the flags of the request begun (known only once its body is written). */
    public MetaMessageWriter flags(final short flags)
    {
        buffer.set(SHORT, FLAGS_OFFSET, flags);
        return this;
    }

    /** An error reply: the status and a message, cut to {@link MetaRpcDescriptor#MAX_ERROR_BYTES}. */
    public int error(final short status, final long requestId, final String message)
    {
        reply(status, requestId);
        final byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        putBytes(bytes, 0, Math.min(bytes.length, MAX_ERROR_BYTES));
        return finish();
    }

    /** @return bytes the frame would have if finished now. */
    public int position()
    {
        return position;
    }

    public MetaMessageWriter putLong(final long value)
    {
        ensure(8);
        buffer.set(LONG, position, value);
        position += 8;
        return this;
    }

    public MetaMessageWriter putInt(final int value)
    {
        ensure(4);
        buffer.set(INT, position, value);
        position += 4;
        return this;
    }

    public MetaMessageWriter putShort(final short value)
    {
        ensure(2);
        buffer.set(SHORT, position, value);
        position += 2;
        return this;
    }

    public MetaMessageWriter putBytes(final byte[] bytes, final int offset, final int length)
    {
        ensure(length);
        MemorySegment.copy(bytes, offset, buffer, ValueLayout.JAVA_BYTE, position, length);
        position += length;
        return this;
    }

    /** A node's token; null writes the all-zero token, which is none. */
    public MetaMessageWriter putToken(final byte[] token)
    {
        ensure(TOKEN_LENGTH);
        if (token == null)
        {
            buffer.asSlice(position, TOKEN_LENGTH).fill((byte)0);
            position += TOKEN_LENGTH;
            return this;
        }
        if (token.length != TOKEN_LENGTH)
        {
            throw new IllegalArgumentException("a node token has " + TOKEN_LENGTH + " bytes, not " + token.length);
        }
        return putBytes(token, 0, TOKEN_LENGTH);
    }

    /** Overwrite an int written earlier (a count known only at the end). */
    public void putIntAt(final int at, final int value)
    {
        buffer.set(INT, at, value);
    }

    public MetaMessageWriter putNode(final NodeRecord node)
    {
        final byte[] provider = node.address().provider().getBytes(StandardCharsets.US_ASCII);
        final byte[] address = node.address().bytes();
        putLong(node.id()).putInt(node.role()).putInt(node.dctNumber()).putLong(node.dcKey()).putLong(node.epoch())
            .putLong(node.leaseExpiry()).putShort((short)provider.length).putShort((short)address.length);
        return putBytes(provider, 0, provider.length).putBytes(address, 0, address.length);
    }

    public MetaMessageWriter putRegion(final RemoteRegion region)
    {
        putLong(region.nodeId()).putLong(region.nodeEpoch()).putLong(region.address()).putLong(region.length())
            .putInt(region.rkey()).putInt(region.access()).putInt(region.layoutVersion());
        return putName(region.name());
    }

    /**
     * A membership, whole or (replicated) only the members a change touched. The count carries
     * {@link MetaRpcDescriptor#MEMBERS_LEFT_LIVE}: each member is followed by when it last left live, which a reader
     * of a membership stored before it was kept takes as 0.
     */
    public MetaMessageWriter putMembership(final MembershipRecord membership)
    {
        putLong(membership.epoch()).putInt(membership.replicas()).putInt(membership.phase())
            .putInt(membership.members().size() | MetaRpcDescriptor.MEMBERS_LEFT_LIVE);
        for (final MemberRecord member : membership.members())
        {
            putLong(member.nodeId()).putInt(member.state()).putLong(member.incarnation()).putInt(member.placement())
                .putLong(member.leftLive());
        }
        return this;
    }

    /** The memory nodes that founded the store (between the MetaServers: the store is founded). */
    public MetaMessageWriter putFounders(final long[] founders)
    {
        putInt(founders.length);
        for (final long founder : founders)
        {
            putLong(founder);
        }
        return this;
    }

    /**
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_NAME_TOO_LONG} when the name has
     * more than {@link MetaRpcDescriptor#MAX_NAME_BYTES} UTF-8 bytes.
     */
    public MetaMessageWriter putName(final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_BYTES)
        {
            throw new MetaRpcException(STATUS_NAME_TOO_LONG,
                "region name '" + name + "' has " + bytes.length + " UTF-8 bytes, more than " + MAX_NAME_BYTES);
        }
        return putInt(bytes.length).putBytes(bytes, 0, bytes.length);
    }

    /**
     * Set the body length.
     *
     * @return the frame length, without the mac still to be appended.
     */
    public int finish()
    {
        buffer.set(INT, BODY_LENGTH_OFFSET, position - HEADER_LENGTH);
        return position;
    }

    private void ensure(final int bytes)
    {
        if (position + (long)bytes + MAC_LENGTH > buffer.byteSize())
        {
            throw new IllegalStateException("frame of " + (position + bytes) + " bytes and its mac exceed the " +
                buffer.byteSize() +
                "-byte buffer");
        }
    }
}

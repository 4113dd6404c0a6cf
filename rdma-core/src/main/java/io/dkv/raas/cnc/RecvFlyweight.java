package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * RECV: receive a message on a connection of the client, into its data area (see {@link CommandDescriptor}).
 */
public final class RecvFlyweight extends CorrelatedFlyweight
{
    public RecvFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int vqpn()
    {
        return buffer.getInt(offset + RECV_VQPN_OFFSET);
    }

    public RecvFlyweight vqpn(final int vqpn)
    {
        buffer.putInt(offset + RECV_VQPN_OFFSET, vqpn);
        return this;
    }

    public int timeoutMs()
    {
        return buffer.getInt(offset + RECV_TIMEOUT_OFFSET);
    }

    public RecvFlyweight timeoutMs(final int timeoutMs)
    {
        buffer.putInt(offset + RECV_TIMEOUT_OFFSET, timeoutMs);
        return this;
    }

    public int maxLength()
    {
        return buffer.getInt(offset + RECV_MAX_LENGTH_OFFSET);
    }

    public RecvFlyweight maxLength(final int maxLength)
    {
        buffer.putInt(offset + RECV_MAX_LENGTH_OFFSET, maxLength);
        return this;
    }

    public long dataOffset()
    {
        return buffer.getLong(offset + RECV_DATA_OFFSET);
    }

    public RecvFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + RECV_DATA_OFFSET, dataOffset);
        return this;
    }
}

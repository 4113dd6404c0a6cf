package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * SEND: a message on a connection of the client, from its data area (see {@link CommandDescriptor}).
 */
public final class SendFlyweight extends CorrelatedFlyweight
{
    public SendFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int vqpn()
    {
        return buffer.getInt(offset + SEND_VQPN_OFFSET);
    }

    public SendFlyweight vqpn(final int vqpn)
    {
        buffer.putInt(offset + SEND_VQPN_OFFSET, vqpn);
        return this;
    }

    public int flags()
    {
        return buffer.getInt(offset + SEND_FLAGS_OFFSET);
    }

    public SendFlyweight flags(final int flags)
    {
        buffer.putInt(offset + SEND_FLAGS_OFFSET, flags);
        return this;
    }

    public int length()
    {
        return buffer.getInt(offset + SEND_LENGTH_OFFSET);
    }

    public SendFlyweight length(final int length)
    {
        buffer.putInt(offset + SEND_LENGTH_OFFSET, length);
        return this;
    }

    public long dataOffset()
    {
        return buffer.getLong(offset + SEND_DATA_OFFSET);
    }

    public SendFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + SEND_DATA_OFFSET, dataOffset);
        return this;
    }
}

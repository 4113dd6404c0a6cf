package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * ACCEPT: wait for a connection to a listener of the client (see {@link CommandDescriptor}).
 */
public final class AcceptFlyweight extends CorrelatedFlyweight
{
    public AcceptFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int listenerId()
    {
        return buffer.getInt(offset + ACCEPT_LISTENER_OFFSET);
    }

    public AcceptFlyweight listenerId(final int listenerId)
    {
        buffer.putInt(offset + ACCEPT_LISTENER_OFFSET, listenerId);
        return this;
    }

    public int timeoutMs()
    {
        return buffer.getInt(offset + ACCEPT_TIMEOUT_OFFSET);
    }

    public AcceptFlyweight timeoutMs(final int timeoutMs)
    {
        buffer.putInt(offset + ACCEPT_TIMEOUT_OFFSET, timeoutMs);
        return this;
    }
}

package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * CONNECT: a connection to a service of a node, which carries messages too (see {@link CommandDescriptor}).
 */
public final class ConnectFlyweight extends CorrelatedFlyweight
{
    public ConnectFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long nodeId()
    {
        return buffer.getLong(offset + CONNECT_NODE_OFFSET);
    }

    public ConnectFlyweight nodeId(final long nodeId)
    {
        buffer.putLong(offset + CONNECT_NODE_OFFSET, nodeId);
        return this;
    }

    public int service()
    {
        return buffer.getInt(offset + CONNECT_SERVICE_OFFSET);
    }

    public ConnectFlyweight service(final int service)
    {
        buffer.putInt(offset + CONNECT_SERVICE_OFFSET, service);
        return this;
    }

    public int flags()
    {
        return buffer.getInt(offset + CONNECT_FLAGS_OFFSET);
    }

    public ConnectFlyweight flags(final int flags)
    {
        buffer.putInt(offset + CONNECT_FLAGS_OFFSET, flags);
        return this;
    }
}

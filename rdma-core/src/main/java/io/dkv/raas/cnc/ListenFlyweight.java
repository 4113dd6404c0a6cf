package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * LISTEN: a listener on a service of the driver's node (see {@link CommandDescriptor}).
 */
public final class ListenFlyweight extends CorrelatedFlyweight
{
    public ListenFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int service()
    {
        return buffer.getInt(offset + LISTEN_SERVICE_OFFSET);
    }

    public ListenFlyweight service(final int service)
    {
        buffer.putInt(offset + LISTEN_SERVICE_OFFSET, service);
        return this;
    }
}

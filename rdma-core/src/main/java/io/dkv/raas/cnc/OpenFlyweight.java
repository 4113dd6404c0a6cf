package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * OPEN: a connection to a node, for one-sided requests (see {@link CommandDescriptor}).
 */
public final class OpenFlyweight extends CorrelatedFlyweight
{
    public OpenFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long nodeId()
    {
        return buffer.getLong(offset + OPEN_NODE_OFFSET);
    }

    public OpenFlyweight nodeId(final long nodeId)
    {
        buffer.putLong(offset + OPEN_NODE_OFFSET, nodeId);
        return this;
    }
}

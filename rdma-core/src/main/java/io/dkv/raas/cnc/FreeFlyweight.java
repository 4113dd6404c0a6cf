package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * FREE: give back a region the client allocated on the driver's node (see {@link CommandDescriptor}).
 */
public final class FreeFlyweight extends CorrelatedFlyweight
{
    public FreeFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int regionHandle()
    {
        return buffer.getInt(offset + FREE_REGION_OFFSET);
    }

    public FreeFlyweight regionHandle(final int regionHandle)
    {
        buffer.putInt(offset + FREE_REGION_OFFSET, regionHandle);
        return this;
    }
}

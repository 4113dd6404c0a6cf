package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_CLASS_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_LENGTH;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_WEIGHT_OFFSET;

/**
 * ADD_CLIENT: a client attaches, saying how the driver should serve it (see {@link CommandDescriptor}):
 * its {@link io.dkv.raas.ServiceClass} code and weight, 0 for the driver's defaults.
 */
public final class AttachFlyweight extends CorrelatedFlyweight
{
    public AttachFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /** @return the class code, 0 when the message is too short to hold one (a client of an older build). */
    public int serviceClassIn(final int messageLength)
    {
        return messageLength < ATTACH_LENGTH ? 0 : buffer.getInt(offset + ATTACH_CLASS_OFFSET);
    }

    public AttachFlyweight serviceClass(final int code)
    {
        buffer.putInt(offset + ATTACH_CLASS_OFFSET, code);
        return this;
    }

    /** @return the weight, 0 when the message is too short to hold one. */
    public int weightIn(final int messageLength)
    {
        return messageLength < ATTACH_LENGTH ? 0 : buffer.getInt(offset + ATTACH_WEIGHT_OFFSET);
    }

    public AttachFlyweight weight(final int weight)
    {
        buffer.putInt(offset + ATTACH_WEIGHT_OFFSET, weight);
        return this;
    }
}

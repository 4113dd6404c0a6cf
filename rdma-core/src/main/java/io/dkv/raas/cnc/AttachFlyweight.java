package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_CLASS_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_LENGTH;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_NODE_ID_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_ROLE_OFFSET;
import static io.dkv.raas.cnc.CommandDescriptor.ATTACH_WEIGHT_OFFSET;

/**
 * ADD_CLIENT: a client attaches, saying how the driver should serve it (see {@link CommandDescriptor}):
 * its {@link io.dkv.raas.ServiceClass} code and weight, 0 for the driver's defaults, and the node it is (0: the
 * driver's own).
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

    /** @return the node the client is, 0 (its driver's own) when the message is too short to hold one. */
    public long nodeIdIn(final int messageLength)
    {
        return messageLength < ATTACH_LENGTH ? 0 : buffer.getLong(offset + ATTACH_NODE_ID_OFFSET);
    }

    public AttachFlyweight nodeId(final long nodeId)
    {
        buffer.putLong(offset + ATTACH_NODE_ID_OFFSET, nodeId);
        return this;
    }

    /** @return the role of the node the client is, 0 when the message is too short to hold one. */
    public int roleIn(final int messageLength)
    {
        return messageLength < ATTACH_LENGTH ? 0 : buffer.getInt(offset + ATTACH_ROLE_OFFSET);
    }

    public AttachFlyweight role(final int role)
    {
        buffer.putInt(offset + ATTACH_ROLE_OFFSET, role);
        return this;
    }
}

package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * A command about one connection or listener of the client, named by its id (a connection's vQPN, a
 * listener's service): CLOSE_CONNECTION, CLOSE_LISTENER, READABLE and POLL_ACCEPT (see
 * {@link CommandDescriptor}).
 */
public final class TargetFlyweight extends CorrelatedFlyweight
{
    public TargetFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int targetId()
    {
        return buffer.getInt(offset + TARGET_ID_OFFSET);
    }

    public TargetFlyweight targetId(final int targetId)
    {
        buffer.putInt(offset + TARGET_ID_OFFSET, targetId);
        return this;
    }
}

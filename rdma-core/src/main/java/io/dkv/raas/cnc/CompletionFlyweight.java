package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * COMPLETION: the outcome of a one-sided request (see {@link CommandDescriptor}).
 */
public final class CompletionFlyweight extends CorrelatedFlyweight
{
    public CompletionFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int status()
    {
        return buffer.getInt(offset + COMPLETION_STATUS_OFFSET);
    }

    public CompletionFlyweight status(final int status)
    {
        buffer.putInt(offset + COMPLETION_STATUS_OFFSET, status);
        return this;
    }

    public long value()
    {
        return buffer.getLong(offset + COMPLETION_VALUE_OFFSET);
    }

    public CompletionFlyweight value(final long value)
    {
        buffer.putLong(offset + COMPLETION_VALUE_OFFSET, value);
        return this;
    }
}

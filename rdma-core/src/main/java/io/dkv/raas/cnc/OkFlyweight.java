package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * OK: a command succeeded, with up to two values it returns (see {@link CommandDescriptor}).
 */
public final class OkFlyweight extends CorrelatedFlyweight
{
    public OkFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long value()
    {
        return buffer.getLong(offset + OK_VALUE_OFFSET);
    }

    public OkFlyweight value(final long value)
    {
        buffer.putLong(offset + OK_VALUE_OFFSET, value);
        return this;
    }

    public long value2()
    {
        return buffer.getLong(offset + OK_VALUE2_OFFSET);
    }

    public OkFlyweight value2(final long value2)
    {
        buffer.putLong(offset + OK_VALUE2_OFFSET, value2);
        return this;
    }
}

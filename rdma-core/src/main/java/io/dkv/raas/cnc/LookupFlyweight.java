package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * LOOKUP: a region the directory has under a name, answered by a REGION (see {@link CommandDescriptor}).
 */
public final class LookupFlyweight extends CorrelatedFlyweight
{
    /** @return bytes of a LOOKUP of a name of {@code nameBytes} bytes. */
    public static int length(final int nameBytes)
    {
        return LOOKUP_NAME_OFFSET + nameBytes;
    }

    public LookupFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    /**
     * @param messageLength of the message, as the ring buffer framed it.
     * @throws io.dkv.raas.RaasException when the name's length is out of bounds.
     */
    public String name(final int messageLength)
    {
        return name(LOOKUP_NAME_LENGTH_OFFSET, LOOKUP_NAME_OFFSET, messageLength);
    }

    /** @param name UTF-8, at most {@link CommandDescriptor#MAX_NAME_LENGTH} bytes. */
    public LookupFlyweight name(final byte[] name)
    {
        putLengthPrefixed(LOOKUP_NAME_LENGTH_OFFSET, LOOKUP_NAME_OFFSET, name);
        return this;
    }
}

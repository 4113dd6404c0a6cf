package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * MALLOC: a region of a node's memory, named or not, answered by a REGION (see
 * {@link CommandDescriptor}).
 */
public final class MallocFlyweight extends CorrelatedFlyweight
{
    /** @return bytes of a MALLOC of a name of {@code nameBytes} bytes. */
    public static int length(final int nameBytes)
    {
        return MALLOC_NAME_OFFSET + nameBytes;
    }

    public MallocFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public long nodeId()
    {
        return buffer.getLong(offset + MALLOC_NODE_OFFSET);
    }

    public MallocFlyweight nodeId(final long nodeId)
    {
        buffer.putLong(offset + MALLOC_NODE_OFFSET, nodeId);
        return this;
    }

    public long size()
    {
        return buffer.getLong(offset + MALLOC_SIZE_OFFSET);
    }

    public MallocFlyweight size(final long size)
    {
        buffer.putLong(offset + MALLOC_SIZE_OFFSET, size);
        return this;
    }

    /** @return where in the client's data area the region's memory is, -1 when the driver is to allocate it. */
    public long dataOffset()
    {
        return buffer.getLong(offset + MALLOC_DATA_OFFSET);
    }

    public MallocFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + MALLOC_DATA_OFFSET, dataOffset);
        return this;
    }

    public int access()
    {
        return buffer.getInt(offset + MALLOC_ACCESS_OFFSET);
    }

    public MallocFlyweight access(final int access)
    {
        buffer.putInt(offset + MALLOC_ACCESS_OFFSET, access);
        return this;
    }

    /**
     * @param messageLength of the message, as the ring buffer framed it.
     * @throws io.dkv.raas.RaasException when the name's length is out of bounds.
     */
    public String name(final int messageLength)
    {
        return name(MALLOC_NAME_LENGTH_OFFSET, MALLOC_NAME_OFFSET, messageLength);
    }

    /** @param name UTF-8, at most {@link CommandDescriptor#MAX_NAME_LENGTH} bytes. */
    public MallocFlyweight name(final byte[] name)
    {
        putLengthPrefixed(MALLOC_NAME_LENGTH_OFFSET, MALLOC_NAME_OFFSET, name);
        return this;
    }
}

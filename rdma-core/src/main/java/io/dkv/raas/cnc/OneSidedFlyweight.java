package io.dkv.raas.cnc;

import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * ONE_SIDED: a READ, WRITE, CAS or FAA on a connection of the client, to a region it obtained (by
 * handle), from or into its data area; answered by a COMPLETION whose correlation id is the request's
 * (see {@link CommandDescriptor}).
 */
public final class OneSidedFlyweight extends CorrelatedFlyweight
{
    public OneSidedFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int vqpn()
    {
        return buffer.getInt(offset + ONE_SIDED_VQPN_OFFSET);
    }

    public OneSidedFlyweight vqpn(final int vqpn)
    {
        buffer.putInt(offset + ONE_SIDED_VQPN_OFFSET, vqpn);
        return this;
    }

    public int opcode()
    {
        return buffer.getInt(offset + ONE_SIDED_OPCODE_OFFSET);
    }

    public OneSidedFlyweight opcode(final int opcode)
    {
        buffer.putInt(offset + ONE_SIDED_OPCODE_OFFSET, opcode);
        return this;
    }

    public int regionHandle()
    {
        return buffer.getInt(offset + ONE_SIDED_REGION_OFFSET);
    }

    public OneSidedFlyweight regionHandle(final int regionHandle)
    {
        buffer.putInt(offset + ONE_SIDED_REGION_OFFSET, regionHandle);
        return this;
    }

    public int length()
    {
        return buffer.getInt(offset + ONE_SIDED_LENGTH_OFFSET);
    }

    public OneSidedFlyweight length(final int length)
    {
        buffer.putInt(offset + ONE_SIDED_LENGTH_OFFSET, length);
        return this;
    }

    public long remoteOffset()
    {
        return buffer.getLong(offset + ONE_SIDED_REMOTE_OFFSET_OFFSET);
    }

    public OneSidedFlyweight remoteOffset(final long remoteOffset)
    {
        buffer.putLong(offset + ONE_SIDED_REMOTE_OFFSET_OFFSET, remoteOffset);
        return this;
    }

    public long dataOffset()
    {
        return buffer.getLong(offset + ONE_SIDED_DATA_OFFSET);
    }

    public OneSidedFlyweight dataOffset(final long dataOffset)
    {
        buffer.putLong(offset + ONE_SIDED_DATA_OFFSET, dataOffset);
        return this;
    }

    public long compareAdd()
    {
        return buffer.getLong(offset + ONE_SIDED_COMPARE_OFFSET);
    }

    public OneSidedFlyweight compareAdd(final long compareAdd)
    {
        buffer.putLong(offset + ONE_SIDED_COMPARE_OFFSET, compareAdd);
        return this;
    }

    public long swap()
    {
        return buffer.getLong(offset + ONE_SIDED_SWAP_OFFSET);
    }

    public OneSidedFlyweight swap(final long swap)
    {
        buffer.putLong(offset + ONE_SIDED_SWAP_OFFSET, swap);
        return this;
    }
}

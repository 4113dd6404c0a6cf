package io.dkv.raas.cnc;

import io.dkv.raas.RemoteRegion;
import org.agrona.MutableDirectBuffer;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * REGION: a region a client obtained (by LOOKUP or MALLOC), and the handle its one-sided requests
 * name it by (see {@link CommandDescriptor}).
 */
public final class RegionFlyweight extends CorrelatedFlyweight
{
    /** @return bytes of a REGION whose name has {@code nameBytes} bytes. */
    public static int length(final int nameBytes)
    {
        return REGION_NAME_OFFSET + nameBytes;
    }

    public RegionFlyweight wrap(final MutableDirectBuffer buffer, final int offset)
    {
        super.wrap(buffer, offset);
        return this;
    }

    public int handle()
    {
        return buffer.getInt(offset + REGION_HANDLE_OFFSET);
    }

    public RegionFlyweight handle(final int handle)
    {
        buffer.putInt(offset + REGION_HANDLE_OFFSET, handle);
        return this;
    }

    /**
     * Write the region's fields (not its handle).
     *
     * @param name its name in UTF-8, as {@link #length} was given.
     */
    public RegionFlyweight region(final RemoteRegion region, final byte[] name)
    {
        buffer.putInt(offset + REGION_RKEY_OFFSET, region.rkey());
        buffer.putLong(offset + REGION_NODE_OFFSET, region.nodeId());
        buffer.putLong(offset + REGION_EPOCH_OFFSET, region.nodeEpoch());
        buffer.putLong(offset + REGION_ADDRESS_OFFSET, region.address());
        buffer.putLong(offset + REGION_LENGTH_OFFSET, region.length());
        buffer.putInt(offset + REGION_ACCESS_OFFSET, region.access());
        buffer.putInt(offset + REGION_LAYOUT_OFFSET, region.layoutVersion());
        putLengthPrefixed(REGION_NAME_LENGTH_OFFSET, REGION_NAME_OFFSET, name);
        return this;
    }

    /** @return the region the fields describe. */
    public RemoteRegion region()
    {
        return new RemoteRegion(
            string(REGION_NAME_OFFSET, buffer.getInt(offset + REGION_NAME_LENGTH_OFFSET)),
            buffer.getLong(offset + REGION_NODE_OFFSET),
            buffer.getLong(offset + REGION_EPOCH_OFFSET),
            buffer.getLong(offset + REGION_ADDRESS_OFFSET),
            buffer.getInt(offset + REGION_RKEY_OFFSET),
            buffer.getLong(offset + REGION_LENGTH_OFFSET),
            buffer.getInt(offset + REGION_ACCESS_OFFSET),
            buffer.getInt(offset + REGION_LAYOUT_OFFSET));
    }
}

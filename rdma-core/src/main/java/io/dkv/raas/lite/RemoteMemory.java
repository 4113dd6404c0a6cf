package io.dkv.raas.lite;

import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;

/**
 * LITE's {@code memset} and {@code memcpy} on regions of any node, by one-sided requests from the calling node:
 * bytes travel through a registered staging buffer of {@value #CHUNK_BYTES} bytes, a chunk at a time.
 * A copy between two regions of other nodes READs from one and WRITEs to the other; the regions' own
 * nodes do nothing. The staging buffer is allocated once per instance (registered memory is not given back
 * before the driver closes): keep one per node. Calls are serialised.
 */
public final class RemoteMemory
{
    static final int CHUNK_BYTES = 256 * 1024;

    private final Raas raas;
    private final MemorySegment staging;

    public RemoteMemory(final Raas raas)
    {
        this.raas = raas;
        this.staging = raas.allocateBuffer(CHUNK_BYTES);
    }

    /**
     * Set {@code length} bytes of the region from {@code offset} to {@code value}.
     *
     * @throws RaasException naming the range when it is not within the region, or when a WRITE fails.
     */
    public synchronized void memset(final RemoteRegion region, final long offset, final long length, final byte value)
    {
        requireWithin(region, offset, length, "memset");
        if (length == 0)
        {
            return;
        }
        final int chunk = (int)Math.min(CHUNK_BYTES, length);
        staging.asSlice(0, chunk).fill(value);
        try (Connection connection = raas.open(region.nodeId(), null))
        {
            for (long done = 0; done < length; done += chunk)
            {
                connection.write(region, offset + done, staging, 0, (int)Math.min(chunk, length - done));
            }
        }
    }

    /**
     * Copy {@code length} bytes from {@code src} at {@code srcOffset} to {@code dst} at {@code dstOffset}; the
     * regions may be on different nodes, or be one region (ranges that overlap are copied as by memmove).
     *
     * @throws RaasException naming the range when one is not within its region, or when a request fails.
     */
    public synchronized void memcpy(
        final RemoteRegion dst,
        final long dstOffset,
        final RemoteRegion src,
        final long srcOffset,
        final long length)
    {
        requireWithin(src, srcOffset, length, "memcpy source");
        requireWithin(dst, dstOffset, length, "memcpy destination");
        if (length == 0)
        {
            return;
        }
        final int chunk = (int)Math.min(CHUNK_BYTES, length);
        // a destination after an overlapping source is copied from the end, so no byte is overwritten before read
        final boolean backwards = dst.equals(src) && dstOffset > srcOffset && dstOffset < srcOffset + length;
        try (Connection from = raas.open(src.nodeId(), null); Connection to = raas.open(dst.nodeId(), null))
        {
            for (long done = 0; done < length; done += chunk)
            {
                final int n = (int)Math.min(chunk, length - done);
                final long at = backwards ? length - done - n : done;
                from.read(src, srcOffset + at, staging, 0, n);
                to.write(dst, dstOffset + at, staging, 0, n);
            }
        }
    }

    private static void requireWithin(final RemoteRegion region, final long offset, final long length,
        final String what)
    {
        if (offset < 0 || length < 0 || offset > region.length() - length)
        {
            throw new RaasException(what + " of " + length + " bytes at offset " + offset + " of region '" +
                region.name() + "' (" + region.length() + " bytes on node " + region.nodeId() + ")");
        }
    }
}

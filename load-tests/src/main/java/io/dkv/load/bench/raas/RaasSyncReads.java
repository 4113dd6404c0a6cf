package io.dkv.load.bench.raas;

import io.dkv.load.bench.OffsetCursor;
import io.dkv.raas.Connection;
import io.dkv.raas.RemoteRegion;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;

/**
 * Synchronous READs through a logical connection, one at a time: {@link Connection#read} returns
 * once the data is in the buffer.
 */
final class RaasSyncReads implements TimedLoop
{
    private final Connection connection;
    private final RemoteRegion region;
    private final MemorySegment buffer;
    private final int size;
    private final OffsetCursor offsets;

    RaasSyncReads(final Connection connection, final RemoteRegion region, final MemorySegment buffer, final int size,
        final long[] offsets)
    {
        this.connection = connection;
        this.region = region;
        this.buffer = buffer;
        this.size = size;
        this.offsets = new OffsetCursor(offsets);
    }

    public void run(final int count, final Histogram latencies)
    {
        final long highest = latencies.getHighestTrackableValue();
        for (int i = 0; i < count; i++)
        {
            final long offset = offsets.next();
            final long start = System.nanoTime();
            connection.read(region, offset, buffer, 0, size);
            latencies.recordValue(Math.min(System.nanoTime() - start, highest));
        }
    }
}

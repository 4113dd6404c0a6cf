package io.dkv.load.bench.verbs;

import io.dkv.load.bench.OffsetCursor;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The same accesses a verbs request makes, done by the benchmark thread on local memory: READ
 * copies from the region into a buffer, WRITE from the buffer into the region, and CAS is a
 * compare-and-exchange on a big-endian word, as the remote word of an RDMA atomic is.
 */
final class LocalMemoryProbe implements Probe
{
    private static final VarHandle BIG_ENDIAN_LONG = ValueLayout.JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).varHandle();

    private final Operation operation;
    private final int size;
    private final MemorySegment region;
    private final MemorySegment buffer;
    private final OffsetCursor offsets;

    LocalMemoryProbe(
        final Operation operation, final int size, final MemorySegment region, final MemorySegment buffer,
        final long[] offsets)
    {
        if (size > buffer.byteSize())
        {
            throw new IllegalArgumentException(size + "-byte accesses do not fit a buffer of " + buffer.byteSize() +
                " bytes");
        }
        this.operation = operation;
        this.size = size;
        this.region = region;
        this.buffer = buffer;
        this.offsets = new OffsetCursor(offsets);
    }

    public void runTimed(final int count, final Histogram latencies)
    {
        final long highest = latencies.getHighestTrackableValue();
        for (int i = 0; i < count; i++)
        {
            final long offset = offsets.next();
            final long start = System.nanoTime();
            access(offset);
            latencies.recordValue(Math.min(System.nanoTime() - start, highest));
        }
    }

    public long runBatch(final int count)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            access(offsets.next());
        }
        return System.nanoTime() - start;
    }

    private void access(final long offset)
    {
        switch (operation)
        {
            case READ -> MemorySegment.copy(region, offset, buffer, 0, size);
            case WRITE -> MemorySegment.copy(buffer, 0, region, offset, size);
            case CAS -> compareAndExchange(offset);
        }
    }

    private void compareAndExchange(final long offset)
    {
        // a zeroed region: the exchange always succeeds and leaves the word as it was, as the verbs CAS does
        final long witnessed = (long)BIG_ENDIAN_LONG.compareAndExchange(region, offset, 0L, 0L);
        if (witnessed != 0)
        {
            throw new IllegalStateException("word at offset " + offset + " of the local region is " + witnessed +
                ", not 0");
        }
    }
}

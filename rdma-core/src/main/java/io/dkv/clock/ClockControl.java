package io.dkv.clock;

import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.MappedByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One process's clock control file ({@link ClockControlDescriptor}), mapped: the harness's side shifts and skews it,
 * the process's {@link Clocks} read it. Written by one thread of one process at a time.
 */
public final class ClockControl implements AutoCloseable
{
    private static final int READ_ATTEMPTS_BEFORE_YIELD = 64;

    private final Path path;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;

    private ClockControl(final Path path, final MappedByteBuffer mapped)
    {
        this.path = path;
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
    }

    /** Make (or make again) the file with true clocks: no offset, rate 1. */
    public static ClockControl create(final Path path)
    {
        try
        {
            Files.createDirectories(path.toAbsolutePath().getParent());
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot make the clock control file " + path + ": " + ex.getMessage(), ex);
        }
        final ClockControl control =
            new ClockControl(path, IoUtil.mapNewFile(path.toFile(), ClockControlDescriptor.LENGTH, true));
        control.buffer.putDouble(ClockControlDescriptor.RATE_OFFSET, 1.0);
        control.buffer.putLongOrdered(ClockControlDescriptor.MAGIC_OFFSET, ClockControlDescriptor.MAGIC);
        return control;
    }

    /** Map a file {@link #create} made. */
    public static ClockControl open(final Path path)
    {
        if (!Files.isRegularFile(path))
        {
            throw new IllegalArgumentException("clock control file " + path + " does not exist");
        }
        final ClockControl control = new ClockControl(path, IoUtil.mapExistingFile(path.toFile(), "clock control"));
        if (control.buffer.capacity() < ClockControlDescriptor.LENGTH ||
            control.buffer.getLongVolatile(ClockControlDescriptor.MAGIC_OFFSET) != ClockControlDescriptor.MAGIC)
        {
            control.close();
            throw new IllegalArgumentException("file " + path + " is no clock control file");
        }
        return control;
    }

    public Path path()
    {
        return path;
    }

    /** @return nanoseconds the process's clocks have gained at true monotonic time {@code trueNanos}. */
    public long skewNanos(final long trueNanos)
    {
        return read(trueNanos, true, false);
    }

    /** @return nanoseconds the process's wall clock is off at true monotonic time {@code trueNanos}: step and skew. */
    public long wallSkewNanos(final long trueNanos)
    {
        return read(trueNanos, true, true);
    }

    /** @return nanoseconds the process's wall clock was stepped by, besides its skew. */
    public long wallOffsetNanos()
    {
        return read(0, false, true);
    }

    /** One consistent reading of the file (a sequence lock): the skew at {@code trueNanos}, the step, or both. */
    private long read(final long trueNanos, final boolean skew, final boolean step)
    {
        int attempts = 0;
        while (true)
        {
            final long sequence = buffer.getLongVolatile(ClockControlDescriptor.SEQUENCE_OFFSET);
            if ((sequence & 1) == 0)
            {
                final double rate = buffer.getDouble(ClockControlDescriptor.RATE_OFFSET);
                final long anchor = buffer.getLong(ClockControlDescriptor.ANCHOR_OFFSET);
                final long skewAtAnchor = buffer.getLong(ClockControlDescriptor.SKEW_AT_ANCHOR_OFFSET);
                final long offset = step ? buffer.getLong(ClockControlDescriptor.WALL_OFFSET_OFFSET) : 0;
                VarHandle.loadLoadFence();
                if (buffer.getLongVolatile(ClockControlDescriptor.SEQUENCE_OFFSET) == sequence)
                {
                    return offset + (!skew ? 0 : rate == 1.0 ? skewAtAnchor :
                        skewAtAnchor + (long)((trueNanos - anchor) * (rate - 1.0)));
                }
            }
            if (++attempts % READ_ATTEMPTS_BEFORE_YIELD == 0)
            {
                // the writer was stopped mid-write (it is a process a nemesis can pause too): let it go on
                Thread.yield();
            }
        }
    }

    public double rate()
    {
        return buffer.getDouble(ClockControlDescriptor.RATE_OFFSET);
    }

    /** Step the wall clock by {@code nanos} (either way); the monotonic clock does not move. */
    public void stepWall(final long nanos)
    {
        beginWrite();
        buffer.putLong(ClockControlDescriptor.WALL_OFFSET_OFFSET,
            buffer.getLong(ClockControlDescriptor.WALL_OFFSET_OFFSET) + nanos);
        endWrite();
    }

    /**
     * Run both clocks at {@code rate} times true time from now on, without a step.
     *
     * @throws IllegalArgumentException naming the rate when it is not above 0 (a clock that stops or runs back).
     */
    public void rate(final double rate)
    {
        if (!(rate > 0) || Double.isInfinite(rate))
        {
            throw new IllegalArgumentException("a clock's rate must be above 0 and finite: " + rate);
        }
        final long now = System.nanoTime();
        final long skew = skewNanos(now);
        beginWrite();
        buffer.putLong(ClockControlDescriptor.ANCHOR_OFFSET, now);
        buffer.putLong(ClockControlDescriptor.SKEW_AT_ANCHOR_OFFSET, skew);
        buffer.putDouble(ClockControlDescriptor.RATE_OFFSET, rate);
        endWrite();
    }

    /**
     * Back to true rate, the wall clock stepped back to true time; the monotonic clock keeps what it gained (it
     * cannot step back).
     */
    public void heal()
    {
        final long now = System.nanoTime();
        final long skew = skewNanos(now);
        beginWrite();
        buffer.putLong(ClockControlDescriptor.ANCHOR_OFFSET, now);
        buffer.putLong(ClockControlDescriptor.SKEW_AT_ANCHOR_OFFSET, skew);
        buffer.putDouble(ClockControlDescriptor.RATE_OFFSET, 1.0);
        buffer.putLong(ClockControlDescriptor.WALL_OFFSET_OFFSET, -skew);
        endWrite();
    }

    /** @return how far the clocks are now, for a log: "wall +1.500 s, monotonic +0.020 s, rate 1.00". */
    public String describe()
    {
        final long skew = skewNanos(System.nanoTime());
        return String.format(Locale.ROOT, "wall %+.3f s, monotonic %+.3f s, rate %.2f",
            wallSkewNanos(System.nanoTime()) / 1e9, skew / 1e9, rate());
    }

    private void beginWrite()
    {
        final long sequence = buffer.getLong(ClockControlDescriptor.SEQUENCE_OFFSET);
        buffer.putLongVolatile(ClockControlDescriptor.SEQUENCE_OFFSET, sequence + 1);
        // the fields' stores must not be seen before the sequence turned odd
        VarHandle.storeStoreFence();
    }

    private void endWrite()
    {
        final long sequence = buffer.getLong(ClockControlDescriptor.SEQUENCE_OFFSET);
        buffer.putLongOrdered(ClockControlDescriptor.SEQUENCE_OFFSET, sequence + 1);
    }

    public void close()
    {
        IoUtil.unmap(mapped);
    }
}

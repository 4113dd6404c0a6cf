package io.dkv.load.bench.raas;

import io.dkv.raas.Connection;
import org.HdrHistogram.Histogram;

import java.lang.foreign.MemorySegment;

/**
 * Round trips of one message size carried one way: a synchronous send and the receive of the
 * echo, one message in flight. The echo is told the same way before the first message of each run.
 */
final class MessageRoundTrips implements TimedLoop
{
    private final Connection connection;
    private final MessageEcho echo;
    private final MessageMode mode;
    private final MemorySegment out;
    private final MemorySegment in;
    private final int size;

    /**
     * @param out what is sent, native; its first {@code size} bytes.
     * @param in  where the echo is received, at least {@code size} bytes.
     */
    MessageRoundTrips(
        final Connection connection, final MessageEcho echo, final MessageMode mode, final MemorySegment out,
        final MemorySegment in,
        final int size)
    {
        this.connection = connection;
        this.echo = echo;
        this.mode = mode;
        this.out = out;
        this.in = in;
        this.size = size;
    }

    public void run(final int count, final Histogram latencies)
    {
        echo.flags(mode.flags());
        final int flags = mode.flags();
        final int capacity = (int)in.byteSize();
        final long highest = latencies.getHighestTrackableValue();
        for (int i = 0; i < count; i++)
        {
            final long start = System.nanoTime();
            connection.send(out, 0, size, flags);
            final int received = roundTrip(capacity);
            latencies.recordValue(Math.min(System.nanoTime() - start, highest));
            if (received != size)
            {
                throw new IllegalStateException(mode.label() + ": sent " + size + " bytes, the echo returned " +
                    received);
            }
        }
        if (MemorySegment.mismatch(out, 0, size, in, 0, size) >= 0)
        {
            throw new IllegalStateException(mode.label() + ": the echo of a " + size +
                "-byte message differs from what was sent");
        }
    }

    private int roundTrip(final int capacity)
    {
        try
        {
            return connection.recv(in, 0, capacity, MessageEcho.WAIT);
        }
        catch (final RuntimeException ex)
        {
            final Throwable echoFailure = echo.failure();
            if (echoFailure != null)
            {
                ex.addSuppressed(echoFailure);
            }
            throw ex;
        }
    }
}

package io.dkv.load.bench.compute;

import io.dkv.load.resp.RespSocket;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * What the parts that time one element's read or change on a large value against one of {@link #SMALL} elements share
 * (collections' hashes, ordered's sorted sets and lists): loading a value by commands of {@link #LOAD_BATCH}
 * elements, with progress lines, and runs of requests on the values taking turns.
 */
final class SizedRuns
{
    /** Elements of the small value. */
    static final int SMALL = 10;
    /** Elements a loading command adds. */
    static final int LOAD_BATCH = 1_000;
    /** Requests on one value before the other's turn. */
    static final int TURN = 1_000;
    /** The memory node's grace period (10 s) and a margin: the load's replaced blocks come back meanwhile. */
    static final long QUIET_MS = 12_000;
    static final int TIMEOUT_MS = 60_000;
    static final long HIGHEST_NANOS = 60_000_000_000L;

    /** The {@code i}th request of a run on value {@code value}: it sends it, reads the reply and records its time. */
    interface Request
    {
        void run(int value, long i);
    }

    private SizedRuns()
    {
    }

    /**
     * Make {@code key} a value of {@code size} elements: DEL, then {@code verb key} and the arguments of {@link
     * #LOAD_BATCH} elements a command, one command at a time, a progress line every 100.
     *
     * @param label   the progress lines' beginning, e.g. "collections: dkv".
     * @param value   what the value is, e.g. "a hash".
     * @param element the arguments that add element {@code e}, e.g. its field and value.
     * @return how long the commands took, from the first's sending to the last's reply.
     */
    static long load(final RespSocket socket, final PrintWriter progress, final String label, final String value,
        final byte[] verb, final byte[] key, final int size, final IntFunction<byte[][]> element)
    {
        socket.call(bytes("DEL"), key);
        final long started = System.nanoTime();
        for (int from = 0; from < size; from += LOAD_BATCH)
        {
            final int to = Math.min(size, from + LOAD_BATCH);
            final List<byte[]> command = new ArrayList<>(2 + 2 * (to - from));
            command.add(verb);
            command.add(key);
            for (int e = from; e < to; e++)
            {
                Collections.addAll(command, element.apply(e));
            }
            socket.call(command.toArray(byte[][]::new));
            if ((to / LOAD_BATCH) % 100 == 0 && to < size)
            {
                progress.printf(Locale.ROOT, "%s, %s: %,d of %,d elements loaded in %,d ms%n", label, value, to, size,
                    (System.nanoTime() - started) / 1_000_000);
                progress.flush();
            }
        }
        final long nanos = System.nanoTime() - started;
        progress.printf(Locale.ROOT, "%s, %s of %,d elements loaded in %,d ms%n", label, value, size,
            nanos / 1_000_000);
        progress.flush();
        return nanos;
    }

    /**
     * {@code operations} requests on each of {@code values} values, the values taking turns by runs of {@link #TURN},
     * so that whatever else the machine does falls on each alike.
     *
     * @return how long each value's runs took in all, in nanoseconds.
     */
    static long[] inTurns(final long operations, final int values, final Request request)
    {
        final long[] nanos = new long[values];
        for (long done = 0; done < operations; done += TURN)
        {
            for (int v = 0; v < values; v++)
            {
                final long begun = System.nanoTime();
                for (long i = done; i < Math.min(operations, done + TURN); i++)
                {
                    request.run(v, i);
                }
                nanos[v] += System.nanoTime() - begun;
            }
        }
        return nanos;
    }

    static Histogram histogram()
    {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    /** Records the time since {@code startNanos} ({@link System#nanoTime()}). */
    static void record(final Histogram histogram, final long startNanos)
    {
        histogram.recordValue(Math.min(HIGHEST_NANOS, System.nanoTime() - startNanos));
    }

    static double p50(final Histogram histogram)
    {
        return histogram.getValueAtPercentile(50);
    }

    /** @return the percentile in microseconds, e.g. "63". */
    static String micros(final Histogram histogram, final double percentile)
    {
        return String.format(Locale.ROOT, "%,.0f", histogram.getValueAtPercentile(percentile) / 1000.0);
    }

    static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

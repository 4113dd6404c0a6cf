package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.ControlHeader;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.RaasContext;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Thresholds: the round trip of a message between two embedded drivers, one message in flight,
 * for each size and each way of carrying it (SEND or WRITE_WITH_IMM; copied or registered), the
 * ways of one size timed in alternating blocks. The crossovers are what
 * each provider's {@code RaasConfiguration} SEND and COPY threshold defaults should be.
 */
final class ThresholdBenchmark
{
    static final int SERVICE = 7;

    private final PartSettings settings;
    private final List<Integer> sizes;
    private final InterleavedLatency runner;
    private final PrintWriter progress;
    private final int maxSize;

    /**
     * @param settings what the drivers are started with, the copy threshold raised on top so that the copy path
     *                 takes every size measured; the warm-up is how long each way runs at the smallest and at the
     *                 largest size before the first size is measured, so that the first is not measured while the
     *                 messaging code is still being compiled.
     * @param sizes    message sizes, increasing.
     * @param runner   how each size is measured.
     */
    ThresholdBenchmark(
        final PartSettings settings,
        final List<Integer> sizes,
        final InterleavedLatency runner)
    {
        this.sizes = sizes.stream().sorted().distinct().toList();
        this.maxSize = this.sizes.get(this.sizes.size() - 1);
        // a COPY larger than the driver's send buffers (sized by the copy threshold) would be registered instead
        this.settings = settings.withDriverSettings(context ->
            settings.driverSettings().apply(context).copyThreshold(Math.max(context.copyThreshold(), maxSize)));
        this.runner = runner;
        this.progress = settings.progress();
    }

    /**
     * @return the largest payload a SEND carries with the drivers' settings.
     */
    int maxSendPayload()
    {
        return settings.driverSettings().apply(new RaasContext()).receiveBufferBytes() - ControlHeader.LENGTH;
    }

    List<ThresholdRow> run(final Provider provider, final RaasPath path)
    {
        final int maxSendPayload = maxSendPayload();
        final List<ThresholdRow> rows = new ArrayList<>();
        try (RaasNodes nodes = new RaasNodes(provider, settings.on(path));
            Listener listener = nodes.server().listen(SERVICE);
            Arena arena = Arena.ofShared())
        {
            // messages do not count towards promotion: the RC path is asked for when connecting
            final Connection client = nodes.client().connect(
                nodes.serverId(), SERVICE, path == RaasPath.RC ? Flags.FORCE_RC : Flags.ADAPTIVE, null);
            final Connection server = listener.accept(MessageEcho.WAIT);
            nodes.awaitPath(path);
            final MemorySegment out = arena.allocate(maxSize, 64);
            final MemorySegment in = arena.allocate(maxSize, 64);
            fill(out);
            try (MessageEcho echo = new MessageEcho(server, arena.allocate(maxSize, 64)))
            {
                try
                {
                    measure(provider, path, client, echo, out, in, maxSendPayload, rows);
                    nodes.requirePath(path, provider + " message round trips");
                }
                catch (final RuntimeException ex)
                {
                    stopQuietly(client, out, ex);
                    throw ex;
                }
                stop(client, out);
            }
        }
        return rows;
    }

    private void measure(
        final Provider provider,
        final RaasPath path,
        final Connection client,
        final MessageEcho echo,
        final MemorySegment out,
        final MemorySegment in,
        final int maxSendPayload,
        final List<ThresholdRow> rows)
    {
        progress.printf("[thresholds] %s over %s, warming up%n", provider, path);
        progress.flush();
        InterleavedLatency.warmUp(List.of(
            ways(client, echo, out, in, sizes.get(0), maxSendPayload),
            ways(client, echo, out, in, maxSize, maxSendPayload)).stream().flatMap(List::stream).toList(),
            settings.warmupMillis());
        for (final int size : sizes)
        {
            progress.printf("[thresholds] %s over %s, message round trips of %,d B%n", provider, path, size);
            progress.flush();
            final boolean sendFits = size <= maxSendPayload;
            final List<Latency> latencies = runner.measure(ways(client, echo, out, in, size, maxSendPayload));
            final int first = sendFits ? 1 : 0;
            rows.add(new ThresholdRow(provider, path, size, sendFits ? latencies.get(0) : null,
                latencies.get(first), latencies.get(first + 1)));
        }
    }

    /** An empty message stops the echo. */
    private static void stop(final Connection client, final MemorySegment out)
    {
        client.send(out, 0, 0, Flags.USE_SEND);
    }

    /**
     * Stop the echo after a failure, keeping the failure as what is reported: the echo may be what
     * failed, and stopping it then fails too.
     */
    private static void stopQuietly(final Connection client, final MemorySegment out, final RuntimeException failure)
    {
        try
        {
            stop(client, out);
        }
        catch (final RuntimeException ex)
        {
            failure.addSuppressed(ex);
        }
    }

    /**
     * @return the ways a message of {@code size} bytes can go, SEND first when it fits a receive buffer.
     */
    private static List<TimedLoop> ways(
        final Connection client, final MessageEcho echo, final MemorySegment out, final MemorySegment in,
        final int size,
        final int maxSendPayload)
    {
        final List<TimedLoop> ways = new ArrayList<>();
        if (size <= maxSendPayload)
        {
            ways.add(new MessageRoundTrips(client, echo, MessageMode.SEND, out, in, size));
        }
        ways.add(new MessageRoundTrips(client, echo, MessageMode.WRITE_COPY, out, in, size));
        ways.add(new MessageRoundTrips(client, echo, MessageMode.WRITE_REGISTER, out, in, size));
        return ways;
    }

    private void fill(final MemorySegment segment)
    {
        final SplittableRandom random = new SplittableRandom(settings.seed());
        for (long i = 0; i + 8 <= segment.byteSize(); i += 8)
        {
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
    }

    /**
     * @return where SEND gives way to WRITE_WITH_IMM (both copied), over the sizes SEND can carry;
     * null when none was measured.
     */
    static Crossover sendCrossover(final List<ThresholdRow> rows)
    {
        final List<Crossover.Point> points = new ArrayList<>();
        for (final ThresholdRow row : rows)
        {
            if (row.hasSend())
            {
                points.add(new Crossover.Point(row.size(), row.send(), row.writeCopy()));
            }
        }
        return points.isEmpty() ? null : Crossover.of(points);
    }

    /**
     * @return where copying gives way to registering, over every size measured; null when none was.
     */
    static Crossover copyCrossover(final List<ThresholdRow> rows)
    {
        final List<Crossover.Point> points = new ArrayList<>();
        for (final ThresholdRow row : rows)
        {
            points.add(new Crossover.Point(row.size(), row.writeCopy(), row.writeRegister()));
        }
        return points.isEmpty() ? null : Crossover.of(points);
    }
}

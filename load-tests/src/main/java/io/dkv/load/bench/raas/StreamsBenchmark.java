package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.stream.RaasStream;
import io.dkv.raas.stream.StreamContext;
import io.dkv.raas.stream.StreamCounters;
import io.dkv.raas.stream.StreamListener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code streams}: one writer thread writes pieces of one size into a RaaS byte stream as fast as it can,
 * one reader thread on the other node reads them with {@value #POSTED} receives of the same size posted in
 * registered memory (so they can be advertised); beside it, the same two threads over a {@link SocketChannel}
 * pair on loopback with direct buffers. Rounds alternate the two; each keeps its median.
 */
final class StreamsBenchmark
{
    static final int ROUNDS = 3;
    static final int POSTED = 4;
    private static final int SERVICE = 4242;
    private static final Duration ACCEPT_WAIT = Duration.ofSeconds(10);

    private final PartSettings settings;
    private final List<Integer> sizes;
    private final long roundMillis;

    StreamsBenchmark(final PartSettings settings, final List<Integer> sizes, final long roundMillis)
    {
        this.settings = settings;
        this.sizes = sizes;
        this.roundMillis = roundMillis;
    }

    List<StreamRow> run(final Provider provider) throws IOException
    {
        final List<StreamRow> rows = new ArrayList<>();
        final ExecutorService threads = Executors.newCachedThreadPool();
        try (RaasNodes nodes = new RaasNodes(provider, settings.driverSettings());
            StreamListener listener = StreamListener.listen(nodes.server(), SERVICE, context()))
        {
            for (final int size : sizes)
            {
                settings.progress().printf(Locale.ROOT, "streams: %s, %,d B writes%n", provider, size);
                settings.progress().flush();
                // warm-up: both sides, discarded
                raasRound(nodes, listener, threads, size, settings.warmupMillis());
                socketRound(threads, size, settings.warmupMillis());
                final double[] raas = new double[ROUNDS];
                final double[] socket = new double[ROUNDS];
                long direct = 0;
                long directBytes = 0;
                long indirect = 0;
                long indirectBytes = 0;
                long stale = 0;
                for (int round = 0; round < ROUNDS; round++)
                {
                    final Round stream = raasRound(nodes, listener, threads, size, roundMillis);
                    raas[round] = stream.bytesPerSec();
                    direct += stream.counters().directTransfers();
                    directBytes += stream.counters().directBytes();
                    indirect += stream.counters().indirectTransfers();
                    indirectBytes += stream.counters().indirectBytes();
                    stale += stream.counters().staleAdverts();
                    socket[round] = socketRound(threads, size, roundMillis).bytesPerSec();
                }
                final long all = directBytes + indirectBytes;
                rows.add(new StreamRow(provider, size, Medians.of(raas), Medians.of(socket),
                    all == 0 ? 0 : (double)directBytes / all, direct, indirect, stale));
            }
        }
        finally
        {
            threads.shutdownNow();
        }
        return rows;
    }

    private static StreamContext context()
    {
        return new StreamContext();
    }

    /** One timed round: bytes the reader got until the end of the stream, over the time from the first write. */
    private record Round(long bytes, long nanos, StreamCounters counters)
    {
        double bytesPerSec()
        {
            return bytes * 1e9 / nanos;
        }
    }

    private static Round raasRound(final RaasNodes nodes, final StreamListener listener,
        final ExecutorService threads, final int size, final long millis)
    {
        final CompletableFuture<RaasStream> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(ACCEPT_WAIT), threads);
        try (RaasStream writer = RaasStream.connect(nodes.client(), nodes.serverId(), SERVICE, context());
            RaasStream reader = accepted.join())
        {
            final MemorySegment buffers = reader.allocateReceiveBuffer(size * POSTED);
            for (int i = 0; i < POSTED; i++)
            {
                reader.postReceive(buffers, (long)i * size, size);
            }
            final long start = System.nanoTime();
            final CompletableFuture<long[]> read = CompletableFuture.supplyAsync(() ->
            {
                long bytes = 0;
                int slot = 0;
                int n;
                while ((n = reader.awaitReceive()) >= 0)
                {
                    bytes += n;
                    reader.postReceive(buffers, (long)slot * size, size);
                    slot = (slot + 1) % POSTED;
                }
                return new long[] {bytes, System.nanoTime()};
            }, threads);
            final MemorySegment source = nodes.client().allocateBuffer(size);
            source.fill((byte)7);
            final long end = start + millis * 1_000_000L;
            do
            {
                for (int i = 0; i < 16; i++)
                {
                    writer.write(source, 0, size);
                }
            }
            while (System.nanoTime() < end);
            writer.shutdownOutput();
            final long[] got = read.join();
            return new Round(got[0], got[1] - start, writer.counters());
        }
    }

    private static Round socketRound(final ExecutorService threads, final int size, final long millis)
    {
        try (ServerSocketChannel server = ServerSocketChannel.open())
        {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final CompletableFuture<SocketChannel> accepted = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return server.accept();
                }
                catch (final IOException ex)
                {
                    throw new UncheckedIOException(ex);
                }
            }, threads);
            try (SocketChannel writer = SocketChannel.open(server.getLocalAddress());
                SocketChannel reader = accepted.join())
            {
                final long start = System.nanoTime();
                final CompletableFuture<long[]> read = CompletableFuture.supplyAsync(() ->
                {
                    final ByteBuffer into = ByteBuffer.allocateDirect(size);
                    long bytes = 0;
                    try
                    {
                        int n;
                        while ((n = reader.read(into.clear())) >= 0)
                        {
                            bytes += n;
                        }
                    }
                    catch (final IOException ex)
                    {
                        throw new UncheckedIOException(ex);
                    }
                    return new long[] {bytes, System.nanoTime()};
                }, threads);
                final ByteBuffer source = ByteBuffer.allocateDirect(size);
                final long end = start + millis * 1_000_000L;
                do
                {
                    for (int i = 0; i < 16; i++)
                    {
                        source.clear();
                        while (source.hasRemaining())
                        {
                            writer.write(source);
                        }
                    }
                }
                while (System.nanoTime() < end);
                writer.shutdownOutput();
                final long[] got = read.join();
                return new Round(got[0], got[1] - start, null);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }


    static String describe(final long roundMillis, final long warmupMillis)
    {
        return String.format(Locale.ROOT, "streams: per provider and write size, a stream between the two embedded " +
            "drivers (default StreamContext: 4 MiB stream buffer, transfers up to 2 KiB inside the message): one " +
            "thread writes pieces of the size from registered memory (allocateBuffer) for %,d ms, then shuts its " +
            "output; one thread on the other node keeps %d receives of the size posted in registered memory " +
            "(allocateReceiveBuffer, so they can be advertised) and reads to the end of the stream; throughput = " +
            "bytes read / time from the first write to the end; baseline: the same two threads over a SocketChannel " +
            "pair on 127.0.0.1 with direct buffers of the size (blocking); %d rounds taking the two in turn, median " +
            "kept, after %,d ms of each discarded; direct share = bytes that went into advertised buffers / all",
            roundMillis, POSTED, ROUNDS, warmupMillis);
    }
}

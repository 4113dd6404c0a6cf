package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.lite.RemoteMemory;
import io.dkv.raas.lite.RpcClient;
import io.dkv.raas.lite.RpcServer;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code lite}: LITE's calls between the two embedded drivers. An RPC (RpcClient.call to an RpcServer whose
 * handler copies the request into the reply) against a round trip of the same message through a plain
 * connection and an echo thread, in alternating blocks; memcpy and memset of {@value #MEMORY_BYTES} bytes
 * between two regions of the server, from the client, against one READ of the range into registered memory and
 * one WRITE of it back.
 */
final class LiteBenchmark
{
    static final int MEMORY_BYTES = 4 * 1024 * 1024;
    static final int MEMORY_ROUNDS = 5;
    private static final int RPC_SERVICE = 4343;
    private static final int ECHO_SERVICE = 4344;
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final PartSettings settings;
    private final List<Integer> sizes;
    private final InterleavedLatency runner;

    LiteBenchmark(final PartSettings settings, final List<Integer> sizes, final InterleavedLatency runner)
    {
        this.settings = settings;
        this.sizes = sizes;
        this.runner = runner;
    }

    List<LiteRow> run(final Provider provider)
    {
        settings.progress().printf(Locale.ROOT, "lite: %s%n", provider);
        settings.progress().flush();
        final int largest = sizes.stream().mapToInt(Integer::intValue).max().orElse(64);
        final List<LiteRow> rows = new ArrayList<>();
        try (RaasNodes nodes = new RaasNodes(provider, settings.driverSettings());
            RpcServer server = RpcServer.start(nodes.server(), RPC_SERVICE, (caller, request, length, reply) ->
            {
                MemorySegment.copy(request, 0, reply, 0, length);
                return length;
            }, largest);
            RpcClient client = RpcClient.connect(nodes.client(), nodes.serverId(), RPC_SERVICE, largest);
            Listener listener = nodes.server().listen(ECHO_SERVICE))
        {
            final Connection echoClient = nodes.client().connect(nodes.serverId(), ECHO_SERVICE, Flags.ADAPTIVE, null);
            try (MessageEcho echo = new MessageEcho(listener.accept(WAIT), nodes.server().allocateBuffer(largest)))
            {
                final MemorySegment out = nodes.client().allocateBuffer(largest);
                final MemorySegment in = nodes.client().allocateBuffer(largest);
                out.fill((byte)3);
                for (final int size : sizes)
                {
                    final List<Latency> latencies = runner.measure(List.of(
                        (count, histogram) ->
                        {
                            for (int i = 0; i < count; i++)
                            {
                                final long start = System.nanoTime();
                                client.call(out, 0, size, in, 0, size, WAIT);
                                histogram.recordValue(Math.min(System.nanoTime() - start,
                                    histogram.getHighestTrackableValue()));
                            }
                        },
                        (count, histogram) ->
                        {
                            for (int i = 0; i < count; i++)
                            {
                                final long start = System.nanoTime();
                                echoClient.send(out, 0, size, Flags.ADAPTIVE);
                                echoClient.recv(in, 0, size, WAIT);
                                histogram.recordValue(Math.min(System.nanoTime() - start,
                                    histogram.getHighestTrackableValue()));
                            }
                        }));
                    rows.add(new LiteRow(provider, size, latencies.get(0), latencies.get(1), 0, 0, 0));
                }
                echoClient.send(out, 0, 0, Flags.ADAPTIVE);
            }
            rows.add(memory(nodes, provider));
        }
        return rows;
    }

    private LiteRow memory(final RaasNodes nodes, final Provider provider)
    {
        nodes.server().malloc(nodes.serverId(), MEMORY_BYTES, "lite-source");
        nodes.server().malloc(nodes.serverId(), MEMORY_BYTES, "lite-target");
        final RemoteRegion source = nodes.client().lookup("lite-source");
        final RemoteRegion target = nodes.client().lookup("lite-target");
        final RemoteMemory memory = new RemoteMemory(nodes.client());
        final MemorySegment staging = nodes.client().allocateBuffer(MEMORY_BYTES);
        final Connection connection = nodes.client().open(nodes.serverId(), null);
        final double[] memcpy = new double[MEMORY_ROUNDS];
        final double[] memset = new double[MEMORY_ROUNDS];
        final double[] readWrite = new double[MEMORY_ROUNDS];
        // the first round warms every way up and is discarded
        for (int round = -1; round < MEMORY_ROUNDS; round++)
        {
            final long a = System.nanoTime();
            memory.memcpy(target, 0, source, 0, MEMORY_BYTES);
            final long b = System.nanoTime();
            memory.memset(target, 0, MEMORY_BYTES, (byte)round);
            final long c = System.nanoTime();
            connection.read(source, 0, staging, 0, MEMORY_BYTES);
            connection.write(target, 0, staging, 0, MEMORY_BYTES);
            final long d = System.nanoTime();
            if (round >= 0)
            {
                memcpy[round] = mbps(b - a);
                memset[round] = mbps(c - b);
                readWrite[round] = mbps(d - c);
            }
        }
        connection.close();
        return new LiteRow(provider, MEMORY_BYTES, null, null, Medians.of(memcpy), Medians.of(memset),
            Medians.of(readWrite));
    }

    private static double mbps(final long nanos)
    {
        return MEMORY_BYTES * 1e3 / Math.max(1, nanos);
    }


    static String describe(final List<Integer> sizes, final long warmupMillis)
    {
        return String.format(Locale.ROOT, "lite: per provider, the two embedded drivers; RPC: RpcClient.call of " +
            "%s B to an RpcServer (one poll thread) whose handler copies the request into the reply, against send " +
            "and recv of the same message through a connection whose echo thread sends it back (ADAPTIVE flags), " +
            "native buffers, in alternating blocks after %,d ms of warm-up; memory: RemoteMemory.memcpy and memset " +
            "of %,d B between two regions of the server, from the client (256 KiB chunks through one staging " +
            "buffer), against one READ of the whole range into registered memory and one WRITE of it, median of %d " +
            "rounds after one discarded", sizes, warmupMillis, MEMORY_BYTES, MEMORY_ROUNDS);
    }
}

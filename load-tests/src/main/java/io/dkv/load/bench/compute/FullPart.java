package io.dkv.load.bench.compute;

import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;
import io.dkv.memory.MemoryNodeContext;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static io.dkv.load.bench.Formats.ratio;

/**
 * At the memory limit (issue 67): a compute node over a memory node of {@link #HEAP_BYTES}, and redis-server with
 * maxmemory of the same and noeviction, each filled with values until a SET is refused; then, one request at a time,
 * SETs of new keys (each must answer {@code -OOM}), GETs of keys written (each must answer the value) and DELs of
 * them (each must answer 1), and a FLUSHALL timed whole.
 */
final class FullPart
{
    static final String TITLE = "At the memory limit: refused writes, reads, deletes and a flush, a compute node " +
        "against redis-server";
    /** Four chunks of 4 MiB; redis-server's maxmemory the same. */
    static final long HEAP_BYTES = 16L << 20;
    private static final int CHUNK_BYTES = 4 << 20;
    private static final int VALUE_BYTES = 10_000;
    private static final int TIMEOUT_MS = 60_000;
    private static final String OOM = "answered -OOM";

    private final Path redisBinary;
    private final int requests;
    private final PrintWriter progress;

    /** One server's figures: keys held when full, each kind of request's times, the flush's. */
    record Timing(int keys, long[] refusedSetNanos, long[] getNanos, long[] delNanos, long flushNanos)
    {
    }

    record Result(Timing dkv, Timing redis, String redisVersion, int requests)
    {
    }

    /** @param requests timed requests of each kind; fewer DELs where fewer keys were written. */
    FullPart(final Path redisBinary, final int requests, final PrintWriter progress)
    {
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final MemoryNodeContext memoryNode = new MemoryNodeContext().indexGroups(1024).chunkBytes(CHUNK_BYTES)
            .heapChunks((int)(HEAP_BYTES / CHUNK_BYTES));
        try (InProcessStore store = InProcessStore.start(memoryNode);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            for (final String[] setting : new String[][]{{"maxmemory", Long.toString(HEAP_BYTES)},
                {"maxmemory-policy", "noeviction"}})
            {
                final String reply = RespSocket.callOnce(RedisServer.HOST, redis.port(), TIMEOUT_MS, "CONFIG", "SET",
                    setting[0], setting[1]);
                if (!"+OK".equals(reply))
                {
                    throw new IllegalStateException("CONFIG SET " + String.join(" ", setting) + ": " + reply);
                }
            }
            progress.printf("full: filling a compute node's 16 MiB heap with values of %,d bytes, then %,d of each " +
                "request at full, then the same against redis-server with maxmemory 16 MiB...%n", VALUE_BYTES,
                requests);
            progress.flush();
            final Timing dkv = atFull(RedisServer.HOST + ":" + node.port());
            final Timing baseline = atFull(RedisServer.HOST + ":" + redis.port());
            return new Result(dkv, baseline, redis.version(), requests);
        }
    }

    private Timing atFull(final String endpoint)
    {
        final byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte)'v');
        final List<byte[]> written = new ArrayList<>();
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            while (true)
            {
                final byte[] key = bytes("full-" + written.size());
                try
                {
                    socket.call(bytes("SET"), key, value);
                    written.add(key);
                }
                catch (final IllegalStateException ex)
                {
                    requireOom(endpoint, ex);
                    break;
                }
                if (written.size() > HEAP_BYTES / VALUE_BYTES)
                {
                    throw new IllegalStateException(endpoint + " took " + written.size() + " values of " +
                        VALUE_BYTES + " bytes and refused none: more than its " + HEAP_BYTES + " bytes");
                }
            }
            final long[] refused = new long[requests];
            for (int i = 0; i < requests; i++)
            {
                final long began = System.nanoTime();
                try
                {
                    socket.call(bytes("SET"), bytes("refused-" + i), value);
                    throw new IllegalStateException(endpoint + " took a SET at full");
                }
                catch (final IllegalStateException ex)
                {
                    refused[i] = System.nanoTime() - began;
                    requireOom(endpoint, ex);
                }
            }
            final long[] gets = new long[requests];
            for (int i = 0; i < requests; i++)
            {
                final long began = System.nanoTime();
                final Object read = socket.call(bytes("GET"), written.get(i % written.size()));
                gets[i] = System.nanoTime() - began;
                if (!(read instanceof byte[] got) || got.length != VALUE_BYTES)
                {
                    throw new IllegalStateException(endpoint + " answered GET at full with " + read);
                }
            }
            final long[] dels = new long[Math.min(requests, written.size() / 2)];
            for (int i = 0; i < dels.length; i++)
            {
                final long began = System.nanoTime();
                final Object deleted = socket.call(bytes("DEL"), written.get(i));
                dels[i] = System.nanoTime() - began;
                if (!Long.valueOf(1).equals(deleted))
                {
                    throw new IllegalStateException(endpoint + " answered DEL at full with " + deleted);
                }
            }
            final long began = System.nanoTime();
            socket.call(bytes("FLUSHALL"));
            final long flush = System.nanoTime() - began;
            return new Timing(written.size(), refused, gets, dels, flush);
        }
    }

    /** An error reply other than redis's OOM is a failure of the run, not a figure. */
    private static void requireOom(final String endpoint, final IllegalStateException ex)
    {
        if (ex.getMessage() == null || !ex.getMessage().contains(OOM))
        {
            throw new IllegalStateException(endpoint + " refused a write at full other than with -OOM: " +
                ex.getMessage(), ex);
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static ReportSection section(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("request at full", false),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("p99 ratio", true)));
        addRow(table, "SET, refused (-OOM)", result.dkv().refusedSetNanos(), result.redis().refusedSetNanos());
        addRow(table, "GET of a value of 10 KB", result.dkv().getNanos(), result.redis().getNanos());
        addRow(table, "DEL of one key", result.dkv().delNanos(), result.redis().delNanos());
        return new ReportSection(TITLE, List.of(String.format(Locale.ROOT, "each server filled with values of %,d " +
            "bytes until a SET was refused (dkv: %,d keys in a 16 MiB heap, 3%% of it kept for deletes; " +
            "redis-server: %,d keys under maxmemory 16 MiB, noeviction); %,d of each request, one at a time from " +
            "one connection; ratio: dkv's over redis-server's, lower is better; FLUSHALL of what was left: dkv " +
            "%.1f ms, redis-server %.1f ms", VALUE_BYTES, result.dkv().keys(), result.redis().keys(),
            result.requests(), result.dkv().flushNanos() / 1e6, result.redis().flushNanos() / 1e6)), table);
    }

    private static void addRow(final TextTable table, final String name, final long[] dkv, final long[] redis)
    {
        final double dkv50 = Percentiles.of(dkv, 50);
        final double redis50 = Percentiles.of(redis, 50);
        final double dkv99 = Percentiles.of(dkv, 99);
        final double redis99 = Percentiles.of(redis, 99);
        table.addRow(name, micros(dkv50), micros(redis50), ratio(dkv50 / redis50), micros(dkv99), micros(redis99),
            ratio(dkv99 / redis99));
    }

    /** @return the goal line: refused writes answer in at most 1 ms at p99. */
    static List<String> goals(final Result result)
    {
        final double p99 = Percentiles.of(result.dkv().refusedSetNanos(), 99) / 1e6;
        return List.of(String.format(Locale.ROOT, "at full, writes answer OOM in <= 1 ms p99: %s (%.2f ms; " +
            "GET, DEL and FLUSHALL all served)", p99 <= 1.0 ? "MET" : "MISSED", p99));
    }

    private static String micros(final double nanos)
    {
        return String.format(Locale.ROOT, "%,.0f", nanos / 1e3);
    }
}

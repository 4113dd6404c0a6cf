package io.dkv.load.bench.compute;

import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeConfiguration;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import static io.dkv.load.bench.Formats.ratio;

/**
 * Values longer than the 1 MiB a block takes (strings in pieces, written and read a piece at a time) against
 * redis-server, one after the other in the same run: SET and then GET of one key, rounds of each size from one
 * connection, each GET's bytes checked against what was set.
 */
final class LongStringsPart
{
    static final String TITLE = "Long strings: SET and GET of one value of several MB, a compute node against " +
        "redis-server";
    private static final int TIMEOUT_MS = 120_000;
    private static final byte[] KEY = "long".getBytes(StandardCharsets.US_ASCII);

    private final Path redisBinary;
    private final int[] megabytes;
    private final int rounds;
    private final PrintWriter progress;

    /** One server's rounds at one size: each SET's and GET's time. */
    record Timing(long[] setNanos, long[] getNanos)
    {
        double median(final long[] nanos)
        {
            final long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length / 2];
        }
    }

    record Row(int megabytes, Timing dkv, Timing redis)
    {
    }

    record Result(List<Row> rows, String redisVersion, int ioThreads)
    {
    }

    /** @param megabytes the sizes, in units of 10^6 bytes; {@code rounds} SET and GET of each. */
    LongStringsPart(final Path redisBinary, final int[] megabytes, final int rounds, final PrintWriter progress)
    {
        this.redisBinary = redisBinary;
        this.megabytes = megabytes.clone();
        this.rounds = rounds;
        this.progress = progress;
    }

    Result run() throws java.io.IOException, InterruptedException
    {
        final int ioThreads = ComputeNodeConfiguration.IO_THREADS_DEFAULT;
        long written = 0;
        for (final int size : megabytes)
        {
            // each round's value written, the one it replaces still there until the memory node's grace ends
            written += 2_000_000L * size * (rounds + 1);
        }
        final List<Row> rows = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(InProcessStore.sizedFor(16, written, ioThreads));
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            for (final int size : megabytes)
            {
                final byte[] value = new byte[size * 1_000_000];
                new SplittableRandom(size).nextBytes(value);
                progress.printf("long strings: %d rounds of SET and GET of %d MB against the compute node, then " +
                    "redis-server...%n", rounds, size);
                progress.flush();
                final Timing dkv = rounds(RedisServer.HOST + ":" + node.port(), value);
                final Timing baseline = rounds(RedisServer.HOST + ":" + redis.port(), value);
                rows.add(new Row(size, dkv, baseline));
            }
            return new Result(rows, redis.version(), ioThreads);
        }
    }

    private Timing rounds(final String endpoint, final byte[] value)
    {
        final long[] sets = new long[rounds];
        final long[] gets = new long[rounds];
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            // one untimed round: the connection, the classes and the first chunks made
            socket.call(bytes("SET"), KEY, value);
            socket.call(bytes("GET"), KEY);
            for (int r = 0; r < rounds; r++)
            {
                value[r] ^= 1;
                final long began = System.nanoTime();
                socket.call(bytes("SET"), KEY, value);
                final long set = System.nanoTime();
                final Object read = socket.call(bytes("GET"), KEY);
                gets[r] = System.nanoTime() - set;
                sets[r] = set - began;
                if (!(read instanceof byte[] got) || !Arrays.equals(got, value))
                {
                    throw new IllegalStateException(endpoint + " answered GET of a " + value.length + "-byte value " +
                        "with " + (read instanceof byte[] got ? got.length + " other bytes" : String.valueOf(read)));
                }
            }
            socket.call(bytes("DEL"), KEY);
        }
        return new Timing(sets, gets);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static List<ReportSection> sections(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("value MB", true),
            new TextTable.Column("dkv SET ms", true),
            new TextTable.Column("redis SET ms", true),
            new TextTable.Column("SET ratio", true),
            new TextTable.Column("dkv GET ms", true),
            new TextTable.Column("redis GET ms", true),
            new TextTable.Column("GET ratio", true),
            new TextTable.Column("dkv SET MB/s", true),
            new TextTable.Column("dkv GET MB/s", true)));
        for (final Row row : result.rows())
        {
            final double dkvSet = row.dkv().median(row.dkv().setNanos());
            final double redisSet = row.redis().median(row.redis().setNanos());
            final double dkvGet = row.dkv().median(row.dkv().getNanos());
            final double redisGet = row.redis().median(row.redis().getNanos());
            table.addRow(String.format(Locale.ROOT, "%,d", row.megabytes()), millis(dkvSet), millis(redisSet),
                ratio(redisSet / dkvSet), millis(dkvGet), millis(redisGet), ratio(redisGet / dkvGet),
                String.format(Locale.ROOT, "%,.0f", row.megabytes() * 1e9 / dkvSet),
                String.format(Locale.ROOT, "%,.0f", row.megabytes() * 1e9 / dkvGet));
        }
        return List.of(new ReportSection(TITLE, List.of(
            "medians of the rounds, each a SET of the whole value and a GET of it from one connection (the GET's " +
                "bytes checked); ratio: redis-server's time over dkv's, higher is better; MB are 10^6 bytes",
            "a compute node writes a value over 1 MiB into 512 KiB pieces as it arrives and reads it back a piece " +
                "at a time as the connection takes it; redis-server holds it whole"), table));
    }

    private static String millis(final double nanos)
    {
        return String.format(Locale.ROOT, "%,.1f", nanos / 1e6);
    }
}

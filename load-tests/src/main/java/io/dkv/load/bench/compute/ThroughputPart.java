package io.dkv.load.bench.compute;

import io.dkv.format.KvBlockLayout;
import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.compute.ComputeNodeConfiguration;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * redis-benchmark's SET and GET at each {@link Setting} against a compute node over an in-process dkv store and
 * against redis-server, one after the other on the same machine in the same run.
 */
final class ThroughputPart
{
    static final String TITLE = "throughput: redis-benchmark SET and GET, a compute node against redis-server";
    /** redis-benchmark's keys with -r: "key:" and twelve digits. */
    private static final int KEY_BYTES = 16;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final PrintWriter progress;
    private final String provider;
    private final String asyncCommands;
    private final List<String> tests;

    /** One row: a setting and test, each store's figures. */
    record Row(Setting setting, String test, RedisBenchmarkFigures dkv, RedisBenchmarkFigures redis)
    {
    }

    /** What the part found: rows, and the words for the method lines. */
    record Result(List<Row> rows, String redisVersion, int ioThreads, long heapChunks, String provider,
        boolean asyncCommands)
    {
    }

    ThroughputPart(
        final RedisBenchmarkTool tool,
        final Path redisBinary,
        final long requests,
        final long keyspace,
        final int valueBytes,
        final PrintWriter progress,
        final String provider,
        final String asyncCommands,
        final List<String> tests)
    {
        this.tests = List.copyOf(tests);
        this.provider = provider;
        this.asyncCommands = asyncCommands;
        this.tool = tool;
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.keyspace = keyspace;
        this.valueBytes = valueBytes;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        long sets = 0;
        for (final Setting setting : Setting.ALL)
        {
            sets += requests * setting.multiplier();
        }
        // bytes each request of the tests writes, with room: an MSET its ten values, ten intents (larger) and their
        // resolutions; SET and INCR one block; a hash's or a set's change a segment (about 2 KiB) and the header, its
        // intents carrying new and prior values; a list's or a sorted set's a path of nodes (up to 4 KiB each, a
        // sorted set's in two trees) and the header (as the collections and ordered parts size theirs)
        final long block = KvBlockLayout.blockLength(KEY_BYTES, valueBytes);
        long bytesPerRequest = 0;
        for (final String test : tests)
        {
            bytesPerRequest += switch (test)
            {
                case "get" -> 0;
                case "mset" -> 64 * block;
                case "set", "incr" -> block;
                case "hset", "sadd", "spop" -> 4L * KvBlockLayout.blockLength(24, 2_048);
                default -> 16L * KvBlockLayout.blockLength(24, 4_096);
            };
        }
        final int ioThreads = ComputeNodeConfiguration.IO_THREADS_DEFAULT;
        final List<Row> rows = new ArrayList<>();
        final var memoryNode =
            InProcessStore.sizedFor(keyspace, sets * Math.max(block, bytesPerRequest), ioThreads);
        try (InProcessStore store = InProcessStore.start(memoryNode, 1, 1, 1, provider);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client())
                .asyncCommands(asyncCommands));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            for (final Setting setting : Setting.ALL)
            {
                progress.printf("throughput %s: %,d of each of %s against the compute node, then redis-server...%n",
                    setting.label(), requests * setting.multiplier(), String.join(", ", tests));
                progress.flush();
                final List<String> rowNames = tests.stream().map(RedisBenchmarkTool::rowName).toList();
                final Map<String, RedisBenchmarkFigures> dkv = tool.tests(RedisServer.HOST, node.port(), setting,
                    String.join(",", tests), rowNames, requests, keyspace, valueBytes);
                final Map<String, RedisBenchmarkFigures> baseline = tool.tests(RedisServer.HOST, redis.port(), setting,
                    String.join(",", tests), rowNames, requests, keyspace, valueBytes);
                for (final String test : rowNames)
                {
                    rows.add(new Row(setting, test, dkv.get(test), baseline.get(test)));
                }
            }
            return new Result(rows, redis.version(), ioThreads, memoryNode.heapChunks(), provider,
                node.asyncCommands());
        }
    }

    static ReportSection section(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("setting", false),
            new TextTable.Column("test", false),
            new TextTable.Column("dkv ops/s", true),
            new TextTable.Column("redis ops/s", true),
            new TextTable.Column("ops/s ratio", true),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("p99 ratio", true)));
        for (final Row row : result.rows())
        {
            table.addRow(row.setting().label(), row.test(), opsPerSecond(row.dkv().rps()),
                opsPerSecond(row.redis().rps()),
                ratio(row.dkv().rps() / row.redis().rps()), micros(row.dkv().p50Ms()), micros(row.redis().p50Ms()),
                ratioOrDash(row.dkv().p50Ms(), row.redis().p50Ms()), micros(row.dkv().p99Ms()),
                micros(row.redis().p99Ms()),
                ratioOrDash(row.dkv().p99Ms(), row.redis().p99Ms()));
        }
        return new ReportSection(TITLE, List.of(
            "ops/s ratio: dkv's over redis-server's, higher is better; p50 and p99 ratios: dkv's over " +
                "redis-server's, lower is better",
            "latencies are redis-benchmark's, per request from its send to the reply (pipelined: per batch member), " +
                "to its resolution of 1 us; - where this redis-benchmark prints none"), table);
    }

    /** @return the goal lines: ops/s at least redis-server's, p50 at most, at every setting. */
    static List<String> goals(final Result result)
    {
        Row lowestRate = null;
        Row worstP50 = null;
        for (final Row row : result.rows())
        {
            if (lowestRate == null || rateRatio(row) < rateRatio(lowestRate))
            {
                lowestRate = row;
            }
            if (worstP50 == null || p50Ratio(row) > p50Ratio(worstP50) || Double.isNaN(p50Ratio(row)))
            {
                worstP50 = row;
            }
        }
        final List<String> goals = new ArrayList<>();
        goals.add(String.format(Locale.ROOT, "compute node ops/s >= 1.0x redis-server's at every setting: %s " +
            "(lowest %.2fx, %s %s)", rateRatio(lowestRate) >= 1.0 ? "MET" : "MISSED", rateRatio(lowestRate),
            lowestRate.test(), lowestRate.setting().label()));
        final double p50 = p50Ratio(worstP50);
        goals.add(Double.isNaN(p50) ? "compute node p50 <= redis-server's at every setting: NOT MEASURED (this " +
            "redis-benchmark prints no p50)" :
            String.format(Locale.ROOT, "compute node p50 <= redis-server's at every " +
            "setting: %s (highest %.2fx, %s %s: %s us against %s us)", p50 <= 1.0 ? "MET" : "MISSED", p50,
            worstP50.test(), worstP50.setting().label(), micros(worstP50.dkv().p50Ms()),
            micros(worstP50.redis().p50Ms())));
        return goals;
    }

    private static double rateRatio(final Row row)
    {
        return row.dkv().rps() / row.redis().rps();
    }

    private static double p50Ratio(final Row row)
    {
        return row.dkv().p50Ms() / row.redis().p50Ms();
    }

    /** @return milliseconds as whole microseconds, "-" where not measured. */
    static String micros(final double millis)
    {
        return Double.isNaN(millis) ? "-" : String.format(Locale.ROOT, "%,.0f", millis * 1000);
    }

    static String ratioOrDash(final double value, final double baseline)
    {
        return Double.isNaN(value) || Double.isNaN(baseline) ? "-" : ratio(value / baseline);
    }
}

package io.dkv.load.bench.compute;

import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeConfiguration;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.format.KvBlockLayout;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;
import org.agrona.IoUtil;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * What durability costs: redis-benchmark's SET and GET at one setting against a compute node over an in-process store
 * whose memory node keeps keys on disk, under appendfsync no, everysec and always (set at run time by CONFIG SET),
 * beside redis-server with appendonly yes and the same appendfsync, in the same run.
 */
final class DurabilityPart
{
    static final String TITLE = "durability: SET and GET under appendfsync no, everysec and always";
    static final List<String> FSYNCS = List.of("no", "everysec", "always");
    private static final int KEY_BYTES = 16;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final Setting setting;
    private final PrintWriter progress;
    private final String provider;

    /** One row: an appendfsync and a test, each store's figures. */
    record Row(String fsync, String test, RedisBenchmarkFigures dkv, RedisBenchmarkFigures redis)
    {
    }

    record Result(List<Row> rows, Setting setting, String redisVersion, String provider)
    {
    }

    DurabilityPart(final RedisBenchmarkTool tool, final Path redisBinary, final long requests, final long keyspace,
        final int valueBytes, final Setting setting, final PrintWriter progress, final String provider)
    {
        this.tool = tool;
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.keyspace = keyspace;
        this.valueBytes = valueBytes;
        this.setting = setting;
        this.progress = progress;
        this.provider = provider;
    }

    Result run() throws IOException, InterruptedException
    {
        final long total = requests * setting.multiplier() * FSYNCS.size();
        final long block = KvBlockLayout.blockLength(KEY_BYTES, valueBytes);
        final Path data = Files.createTempDirectory("dkv-bench-durability-");
        final List<Row> rows = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(InProcessStore.sizedFor(keyspace, total * block,
                ComputeNodeConfiguration.IO_THREADS_DEFAULT).dataDir(data.resolve("memory-node")), 1, 1, 1, provider);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client())
                .appendOnly("yes").appendFsync("no"));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            config(node.port(), "appendonly", "yes");
            config(redis.port(), "appendonly", "yes");
            for (final String fsync : FSYNCS)
            {
                config(node.port(), "appendfsync", fsync);
                config(redis.port(), "appendfsync", fsync);
                progress.printf("durability appendfsync %s %s: %,d SETs and GETs against the compute node, then " +
                    "redis-server...%n", fsync, setting.label(), requests * setting.multiplier());
                progress.flush();
                final List<String> names = List.of("SET", "GET");
                final Map<String, RedisBenchmarkFigures> dkv = tool.tests(RedisServer.HOST, node.port(), setting,
                    "set,get", names, requests, keyspace, valueBytes);
                final Map<String, RedisBenchmarkFigures> baseline = tool.tests(RedisServer.HOST, redis.port(),
                    setting, "set,get", names, requests, keyspace, valueBytes);
                for (final String test : names)
                {
                    rows.add(new Row(fsync, test, dkv.get(test), baseline.get(test)));
                }
            }
            return new Result(rows, setting, redis.version(), provider);
        }
        finally
        {
            IoUtil.delete(data.toFile(), true);
        }
    }

    private static void config(final int port, final String name, final String value)
    {
        final String reply = RespSocket.callOnce(RedisServer.HOST, port, 60_000, "CONFIG", "SET", name, value);
        if (!"+OK".equals(reply))
        {
            throw new IllegalStateException("CONFIG SET " + name + " " + value + " on port " + port + ": " + reply);
        }
    }

    static ReportSection section(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("appendfsync", false),
            new TextTable.Column("test", false),
            new TextTable.Column("dkv ops/s", true),
            new TextTable.Column("redis ops/s", true),
            new TextTable.Column("ops/s ratio", true),
            new TextTable.Column("dkv vs dkv no", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("p99 ratio", true)));
        for (final Row row : result.rows())
        {
            final Row none = of(result, "no", row.test());
            table.addRow(row.fsync(), row.test(), opsPerSecond(row.dkv().rps()), opsPerSecond(row.redis().rps()),
                ratio(row.dkv().rps() / row.redis().rps()), ratio(row.dkv().rps() / none.dkv().rps()),
                ThroughputPart.micros(row.dkv().p99Ms()), ThroughputPart.micros(row.redis().p99Ms()),
                ThroughputPart.ratioOrDash(row.dkv().p99Ms(), row.redis().p99Ms()));
        }
        return new ReportSection(TITLE, List.of(
            "redis-benchmark " + result.setting().label() + "; ops/s ratio: dkv's over redis-server's with the same " +
                "appendfsync; dkv vs dkv no: dkv's ops/s over its own under appendfsync no; p99 ratio dkv's over " +
                "redis-server's, lower is better"), table);
    }

    /** @return the goal line: SET under everysec at least 0.9x SET under no. */
    static List<String> goals(final Result result)
    {
        final double everysec = of(result, "everysec", "SET").dkv().rps() / of(result, "no", "SET").dkv().rps();
        return List.of(String.format(Locale.ROOT, "SET ops/s under appendfsync everysec >= 0.9x under no: %s " +
            "(%.2fx, %s)", everysec >= 0.9 ? "MET" : "MISSED", everysec, result.setting().label()));
    }

    private static Row of(final Result result, final String fsync, final String test)
    {
        for (final Row row : result.rows())
        {
            if (row.fsync().equals(fsync) && row.test().equals(test))
            {
                return row;
            }
        }
        throw new IllegalStateException("no row of appendfsync " + fsync + ", " + test);
    }
}

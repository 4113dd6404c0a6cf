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
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * Hashes and sets against redis-server, one after the other on the same machine in the same run: redis-benchmark's
 * SADD, HSET and SPOP (each on one key of its own, as redis-benchmark sends them: every request of a run changes the
 * same collection), and HSET and HGET of random existing fields on a hash of many fields against one of 10, from one
 * connection: what one element's change or read costs as the hash grows.
 */
final class CollectionsPart
{
    static final String TITLE = "collections: redis-benchmark SADD, HSET and SPOP, a compute node against redis-server";
    static final String SIZE_TITLE = "collections: HSET and HGET of one field, on a hash of many fields and of 10";
    static final List<String> TESTS = List.of("SADD", "HSET", "SPOP");
    private static final int SMALL = 10;
    private static final int LOAD_BATCH = 1_000;
    /** Requests on one hash before the other's turn. */
    private static final int TURN = 1_000;
    /** The memory node's grace period (10 s) and a margin: the load's replaced blocks come back meanwhile. */
    private static final long QUIET_MS = 12_000;
    private static final int TIMEOUT_MS = 60_000;
    private static final long HIGHEST_NANOS = 60_000_000_000L;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final int fields;
    private final long operations;
    private final PrintWriter progress;

    /** One test at one setting; {@code dkvFailed}: the compute node's calls of it that answered an error. */
    record Row(Setting setting, String test, RedisBenchmarkFigures dkv, RedisBenchmarkFigures redis, long dkvFailed)
    {
    }

    /** One server's HSETs and HGETs on a hash of {@code fields} fields, and how long loading it took. */
    record SizeRow(String server, long fields, long loadNanos, Histogram set, double setRate, Histogram get,
        double getRate, long getAllNanos)
    {
    }

    record Result(List<Row> rows, List<SizeRow> sizes, String redisVersion, int ioThreads)
    {
    }

    /**
     * @param requests   redis-benchmark's requests at -c 1 (4x at -c 50, 16x at -c 50 -P 16).
     * @param fields     fields of the large hash.
     * @param operations HSETs, then HGETs, timed on each hash.
     */
    CollectionsPart(final RedisBenchmarkTool tool, final Path redisBinary, final long requests, final long keyspace,
        final int valueBytes, final int fields, final long operations, final PrintWriter progress)
    {
        this.tool = tool;
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.keyspace = keyspace;
        this.valueBytes = valueBytes;
        this.fields = fields;
        this.operations = operations;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final int ioThreads = ComputeNodeConfiguration.IO_THREADS_DEFAULT;
        // every change rewrites a segment (about 2 KiB) and its header, and a transaction's intents carry new and
        // prior values: room for the blocks the grace period holds, at a quarter of the machine's memory at most
        final long changes = requests * 21 * 3 + (long)fields + 2 * operations;
        final var memoryNode = InProcessStore.sizedFor(Math.max(keyspace, fields / 100 + 1_000),
            changes * 4 * KvBlockLayout.blockLength(24, 2_048), ioThreads);
        final List<Row> rows = new ArrayList<>();
        final List<SizeRow> sizes = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(memoryNode);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            for (final Setting setting : Setting.ALL)
            {
                progress.printf("collections %s: %,d each of SADD, HSET, SPOP against the compute node, then " +
                    "redis-server...%n", setting.label(), requests * setting.multiplier());
                progress.flush();
                final Map<String, Long> failedBefore = failedCalls(RedisServer.HOST + ":" + node.port());
                final Map<String, RedisBenchmarkFigures> dkv = tool.tests(RedisServer.HOST, node.port(), setting,
                    "sadd,hset,spop", TESTS, requests, keyspace, valueBytes);
                final Map<String, Long> failedAfter = failedCalls(RedisServer.HOST + ":" + node.port());
                final Map<String, RedisBenchmarkFigures> baseline = tool.tests(RedisServer.HOST, redis.port(),
                    setting, "sadd,hset,spop", TESTS, requests, keyspace, valueBytes);
                for (final String test : TESTS)
                {
                    rows.add(new Row(setting, test, dkv.get(test), baseline.get(test),
                        failedAfter.getOrDefault(test, 0L) - failedBefore.getOrDefault(test, 0L)));
                }
            }
            sizes.addAll(sized("dkv", RedisServer.HOST + ":" + node.port()));
            sizes.addAll(sized("redis", RedisServer.HOST + ":" + redis.port()));
            return new Result(rows, sizes, redis.version(), ioThreads);
        }
    }

    /**
     * Load a hash of 10 fields and one of {@code fields} into the server, wait out the grace period (the memory node
     * takes back the blocks the load replaced, and the client resolves its last intents: work that would otherwise
     * land on the timed requests of whichever hash came second), then time HSETs and then HGETs of random fields,
     * the two hashes taking turns by runs of {@link #TURN} so that whatever else the machine does falls on both alike.
     */
    private List<SizeRow> sized(final String server, final String endpoint) throws InterruptedException
    {
        final int[] sizes = {SMALL, fields};
        final byte[][] keys = new byte[2][];
        final long[] loadNanos = new long[2];
        final Histogram[] sets = {new Histogram(HIGHEST_NANOS, 3), new Histogram(HIGHEST_NANOS, 3)};
        final Histogram[] gets = {new Histogram(HIGHEST_NANOS, 3), new Histogram(HIGHEST_NANOS, 3)};
        final long[] setNanos = new long[2];
        final long[] getNanos = new long[2];
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            for (int h = 0; h < 2; h++)
            {
                keys[h] = bytes("bench:hash:" + sizes[h]);
                loadNanos[h] = load(socket, server, keys[h], sizes[h]);
            }
            progress.printf("collections: %s, waiting %,d ms for the load's garbage to go; then %,d HSET and %,d " +
                "HGET on each hash, in turns...%n", server, QUIET_MS, operations, operations);
            progress.flush();
            Thread.sleep(QUIET_MS);
            final SplittableRandom random = new SplittableRandom(fields);
            for (long done = 0; done < operations; done += TURN)
            {
                for (int h = 0; h < 2; h++)
                {
                    final long begun = System.nanoTime();
                    for (long i = done; i < Math.min(operations, done + TURN); i++)
                    {
                        final long one = System.nanoTime();
                        socket.call(bytes("HSET"), keys[h], field(random.nextInt(sizes[h])), bytes("changed " + i));
                        sets[h].recordValue(Math.min(HIGHEST_NANOS, System.nanoTime() - one));
                    }
                    setNanos[h] += System.nanoTime() - begun;
                }
            }
            for (long done = 0; done < operations; done += TURN)
            {
                for (int h = 0; h < 2; h++)
                {
                    final long begun = System.nanoTime();
                    for (long i = done; i < Math.min(operations, done + TURN); i++)
                    {
                        final byte[] field = field(random.nextInt(sizes[h]));
                        final long one = System.nanoTime();
                        if (socket.call(bytes("HGET"), keys[h], field) == null)
                        {
                            throw new IllegalStateException(server + " has no field " +
                                new String(field, StandardCharsets.US_ASCII) + " of the hash of " + sizes[h] +
                                " it loaded");
                        }
                        gets[h].recordValue(Math.min(HIGHEST_NANOS, System.nanoTime() - one));
                    }
                    getNanos[h] += System.nanoTime() - begun;
                }
            }
            final List<SizeRow> rows = new ArrayList<>();
            for (int h = 0; h < 2; h++)
            {
                final long begun = System.nanoTime();
                final Object all = socket.call(bytes("HGETALL"), keys[h]);
                final long getAllNanos = System.nanoTime() - begun;
                if (!(all instanceof List<?> elements) || elements.size() != 2 * sizes[h])
                {
                    throw new IllegalStateException(server + "'s HGETALL of the hash of " + sizes[h] + " fields " +
                        "answered " + (all instanceof List<?> list ? list.size() + " elements" : all));
                }
                socket.call(bytes("DEL"), keys[h]);
                rows.add(new SizeRow(server, sizes[h], loadNanos[h], sets[h], operations * 1e9 / setNanos[h],
                    gets[h], operations * 1e9 / getNanos[h], getAllNanos));
            }
            return rows;
        }
    }

    /** @return how long loading a hash of {@code size} fields by HSETs of {@link #LOAD_BATCH} took. */
    private long load(final RespSocket socket, final String server, final byte[] key, final int size)
    {
        socket.call(bytes("DEL"), key);
        final long started = System.nanoTime();
        for (int from = 0; from < size; from += LOAD_BATCH)
        {
            final int to = Math.min(size, from + LOAD_BATCH);
            final byte[][] command = new byte[2 + 2 * (to - from)][];
            command[0] = bytes("HSET");
            command[1] = key;
            for (int f = from; f < to; f++)
            {
                command[2 + 2 * (f - from)] = field(f);
                command[3 + 2 * (f - from)] = bytes("value " + f);
            }
            socket.call(command);
            if ((to / LOAD_BATCH) % 100 == 0 && to < size)
            {
                progress.printf("collections: %s, %,d of %,d fields loaded%n", server, to, size);
                progress.flush();
            }
        }
        final long nanos = System.nanoTime() - started;
        progress.printf("collections: %s, a hash of %,d fields loaded in %,d ms%n", server, size, nanos / 1_000_000);
        progress.flush();
        return nanos;
    }

    /**
     * @return each of {@link #TESTS}' failed calls so far, from the node's INFO commandstats: redis-benchmark counts
     * an error reply as a request done, so the figures are checked here.
     */
    private static Map<String, Long> failedCalls(final String endpoint)
    {
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            final String info = new String((byte[])socket.call(bytes("INFO"), bytes("commandstats")),
                StandardCharsets.US_ASCII);
            final Map<String, Long> failed = new HashMap<>();
            for (final String line : info.split("\r\n"))
            {
                for (final String test : TESTS)
                {
                    final String prefix = "cmdstat_" + test.toLowerCase(Locale.ROOT) + ":";
                    final int at = line.indexOf(",failed_calls=");
                    if (line.startsWith(prefix) && at > 0)
                    {
                        failed.put(test, Long.parseLong(line.substring(at + ",failed_calls=".length()).strip()));
                    }
                }
            }
            return failed;
        }
    }

    private static byte[] field(final int f)
    {
        return bytes("field:" + f);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static List<ReportSection> sections(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("setting", false),
            new TextTable.Column("test", false),
            new TextTable.Column("dkv ops/s", true),
            new TextTable.Column("redis ops/s", true),
            new TextTable.Column("ops/s ratio", true),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("dkv errors", true)));
        for (final Row row : result.rows())
        {
            table.addRow(row.setting().label(), row.test(), opsPerSecond(row.dkv().rps()),
                opsPerSecond(row.redis().rps()), ratio(row.dkv().rps() / row.redis().rps()),
                ThroughputPart.micros(row.dkv().p50Ms()), ThroughputPart.micros(row.redis().p50Ms()),
                ThroughputPart.micros(row.dkv().p99Ms()), ThroughputPart.micros(row.redis().p99Ms()),
                String.format(Locale.ROOT, "%,d", row.dkvFailed()));
        }
        final TextTable sizes = new TextTable(List.of(
            new TextTable.Column("server", false),
            new TextTable.Column("fields", true),
            new TextTable.Column("load s", true),
            new TextTable.Column("HSET ops/s", true),
            new TextTable.Column("HSET p50 us", true),
            new TextTable.Column("HSET p99 us", true),
            new TextTable.Column("HGET ops/s", true),
            new TextTable.Column("HGET p50 us", true),
            new TextTable.Column("HGET p99 us", true),
            new TextTable.Column("HGETALL ms", true)));
        for (final SizeRow row : result.sizes())
        {
            sizes.addRow(row.server(), String.format(Locale.ROOT, "%,d", row.fields()),
                String.format(Locale.ROOT, "%.1f", row.loadNanos() / 1e9), opsPerSecond(row.setRate()),
                micros(row.set(), 50), micros(row.set(), 99), opsPerSecond(row.getRate()), micros(row.get(), 50),
                micros(row.get(), 99), String.format(Locale.ROOT, "%,.1f", row.getAllNanos() / 1e6));
        }
        return List.of(new ReportSection(TITLE, List.of(
            "ops/s ratio: dkv's over redis-server's, higher is better; latencies are redis-benchmark's; dkv errors: " +
                "the node's calls that answered an error (INFO commandstats), which redis-benchmark counts as done",
            "redis-benchmark's SADD and SPOP work on one set (myset) and HSET on one hash (myhash): in dkv every " +
                "request of a run is a transaction on the same header, so concurrent ones conflict and run again"),
            table), new ReportSection(SIZE_TITLE, List.of(
            "one connection, one request at a time; HSET overwrites a random existing field, HGET reads one; the two " +
                "hashes take turns by 1,000 requests, after a wait of 12 s that the load's garbage is taken back in",
            "each hash is loaded by HSETs of 1,000 fields; the large one's load includes its splits into segments; " +
                "HGETALL: one, at the end, its whole reply read"),
            sizes));
    }

    /** @return the goal line: one field's HSET and HGET cost no more on the large hash than on the small one. */
    static List<String> goals(final Result result)
    {
        final List<String> goals = new ArrayList<>();
        SizeRow small = null;
        SizeRow large = null;
        for (final SizeRow row : result.sizes())
        {
            if (row.server().equals("dkv"))
            {
                if (row.fields() == SMALL)
                {
                    small = row;
                }
                else
                {
                    large = row;
                }
            }
        }
        if (small != null && large != null)
        {
            final double set = p50(large.set()) / p50(small.set());
            final double get = p50(large.get()) / p50(small.get());
            goals.add(String.format(Locale.ROOT, "one field's HSET and HGET cost the same at %,d fields as at %d " +
                "(p50 within 1.5x): %s (HSET %.2fx, HGET %.2fx)", large.fields(), SMALL,
                set <= 1.5 && get <= 1.5 ? "MET" : "MISSED", set, get));
        }
        return goals;
    }

    private static double p50(final Histogram histogram)
    {
        return histogram.getValueAtPercentile(50);
    }

    private static String micros(final Histogram histogram, final double percentile)
    {
        return String.format(Locale.ROOT, "%,.0f", histogram.getValueAtPercentile(percentile) / 1000.0);
    }
}

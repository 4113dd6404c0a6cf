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
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import static io.dkv.load.bench.Formats.opsPerSecond;

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
    static final List<RedisBenchmarkRows.Test> TESTS = List.of(new RedisBenchmarkRows.Test("sadd", "SADD", "sadd"),
        new RedisBenchmarkRows.Test("hset", "HSET", "hset"), new RedisBenchmarkRows.Test("spop", "SPOP", "spop"));
    private static final int SMALL = SizedRuns.SMALL;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final int fields;
    private final long operations;
    private final PrintWriter progress;

    /** One server's HSETs and HGETs on a hash of {@code fields} fields, and how long loading it took. */
    record SizeRow(String server, long fields, long loadNanos, Histogram set, double setRate, Histogram get,
        double getRate, long getAllNanos)
    {
    }

    record Result(List<RedisBenchmarkRows.Row> rows, List<SizeRow> sizes, String redisVersion, int ioThreads)
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
        final List<RedisBenchmarkRows.Row> rows = new ArrayList<>();
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
                rows.addAll(RedisBenchmarkRows.run(tool, node.port(), redis.port(), setting, TESTS, requests,
                    keyspace, valueBytes));
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
     * the two hashes taking turns by runs of {@link SizedRuns#TURN} so that whatever else the machine does falls on
     * both alike.
     */
    private List<SizeRow> sized(final String server, final String endpoint) throws InterruptedException
    {
        final int[] sizes = {SMALL, fields};
        final byte[][] keys = new byte[2][];
        final long[] loadNanos = new long[2];
        final Histogram[] sets = {SizedRuns.histogram(), SizedRuns.histogram()};
        final Histogram[] gets = {SizedRuns.histogram(), SizedRuns.histogram()};
        try (RespSocket socket = new RespSocket(endpoint, SizedRuns.TIMEOUT_MS))
        {
            for (int h = 0; h < 2; h++)
            {
                keys[h] = bytes("bench:hash:" + sizes[h]);
                loadNanos[h] = SizedRuns.load(socket, progress, "collections: " + server, "a hash", bytes("HSET"),
                    keys[h], sizes[h], f -> new byte[][] {field(f), bytes("value " + f)});
            }
            progress.printf("collections: %s, waiting %,d ms for the load's garbage to go; then %,d HSET and %,d " +
                "HGET on each hash, in turns...%n", server, SizedRuns.QUIET_MS, operations, operations);
            progress.flush();
            Thread.sleep(SizedRuns.QUIET_MS);
            final SplittableRandom random = new SplittableRandom(fields);
            final long[] setNanos = SizedRuns.inTurns(operations, 2, (h, i) ->
            {
                final long one = System.nanoTime();
                socket.call(bytes("HSET"), keys[h], field(random.nextInt(sizes[h])), bytes("changed " + i));
                SizedRuns.record(sets[h], one);
            });
            final long[] getNanos = SizedRuns.inTurns(operations, 2, (h, i) ->
            {
                final byte[] field = field(random.nextInt(sizes[h]));
                final long one = System.nanoTime();
                if (socket.call(bytes("HGET"), keys[h], field) == null)
                {
                    throw new IllegalStateException(server + " has no field " +
                        new String(field, StandardCharsets.US_ASCII) + " of the hash of " + sizes[h] + " it loaded");
                }
                SizedRuns.record(gets[h], one);
            });
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

    private static byte[] field(final int f)
    {
        return bytes("field:" + f);
    }

    private static byte[] bytes(final String text)
    {
        return SizedRuns.bytes(text);
    }

    static List<ReportSection> sections(final Result result)
    {
        final TextTable table = RedisBenchmarkRows.table(result.rows());
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
                SizedRuns.micros(row.set(), 50), SizedRuns.micros(row.set(), 99), opsPerSecond(row.getRate()),
                SizedRuns.micros(row.get(), 50), SizedRuns.micros(row.get(), 99),
                String.format(Locale.ROOT, "%,.1f", row.getAllNanos() / 1e6));
        }
        final List<String> notes = new ArrayList<>(List.of(RedisBenchmarkRows.NOTE,
            "redis-benchmark's SADD and SPOP work on one set (myset) and HSET on one hash (myhash): in dkv every " +
                "request of a run is a transaction on the same header, so concurrent ones conflict and run again"));
        notes.addAll(RedisBenchmarkRows.errors(result.rows()));
        return List.of(new ReportSection(TITLE, notes, table), new ReportSection(SIZE_TITLE, List.of(
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
            final double set = SizedRuns.p50(large.set()) / SizedRuns.p50(small.set());
            final double get = SizedRuns.p50(large.get()) / SizedRuns.p50(small.get());
            goals.add(String.format(Locale.ROOT, "one field's HSET and HGET cost the same at %,d fields as at %d " +
                "(p50 within 1.5x): %s (HSET %.2fx, HGET %.2fx)", large.fields(), SMALL,
                set <= 1.5 && get <= 1.5 ? "MET" : "MISSED", set, get));
        }
        return goals;
    }
}

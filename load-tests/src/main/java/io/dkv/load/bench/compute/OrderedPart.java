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
import io.dkv.memory.MemoryNode;
import io.dkv.memory.MemoryNodeCounter;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;

import static io.dkv.load.bench.Formats.ratio;
import static io.dkv.load.bench.compute.SizedRuns.bytes;

/**
 * Sorted sets and lists (counted B+trees whose nodes are blocks of the store) against redis-server, one after the
 * other on the same machine in the same run: redis-benchmark's ZADD, ZPOPMIN, LPUSH, RPUSH, LPOP, RPOP and LRANGE_100
 * (each on one key of its own, as redis-benchmark sends them), and one element's read or change on a sorted set and a
 * list of many elements against ones of 10, from one connection: what a walk down a taller tree costs.
 */
final class OrderedPart
{
    static final String TITLE =
        "ordered: redis-benchmark on sorted sets and lists, a compute node against redis-server";
    static final String SIZE_TITLE = "ordered: one element's read or change, on a sorted set and a list of many " +
        "elements and of 10";
    static final String LOAD_TITLE = "ordered: loading the sorted sets and lists, and DEL of each";
    /** In redis-benchmark's own order (its -t runs them so): the pushes fill the lists the pops empty. */
    static final List<RedisBenchmarkRows.Test> TESTS = List.of(
        new RedisBenchmarkRows.Test("lpush", "LPUSH", "lpush"),
        new RedisBenchmarkRows.Test("rpush", "RPUSH", "rpush"),
        new RedisBenchmarkRows.Test("lpop", "LPOP", "lpop"),
        new RedisBenchmarkRows.Test("rpop", "RPOP", "rpop"),
        new RedisBenchmarkRows.Test("zadd", "ZADD", "zadd"),
        new RedisBenchmarkRows.Test("zpopmin", "ZPOPMIN", "zpopmin"),
        new RedisBenchmarkRows.Test("lrange_100", "LRANGE_100 (first 100 elements)", "lrange"));
    static final String ZADD = "ZADD";
    static final String ZSCORE = "ZSCORE";
    static final String ZRANK = "ZRANK";
    static final String ZRANGE = "ZRANGE r r+9";
    static final String LINDEX = "LINDEX";
    static final String LRANGE = "LRANGE r r+99";
    static final String LPUSH = "LPUSH";
    static final String RPOP = "RPOP";
    /** The timed operations, in the order they run (LPUSH and RPOP by pairs). */
    static final List<String> OPERATIONS = List.of(ZADD, ZSCORE, ZRANK, ZRANGE, LINDEX, LRANGE, LPUSH, RPOP);
    static final String SORTED_SET = "sorted set";
    static final String LIST = "list";
    private static final int SMALL = SizedRuns.SMALL;
    /** Node bytes a tree splits past ({@code 4 x dkv.client.collection.segment.bytes}). */
    private static final int NODE_BYTES = 4_096;
    private static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Before each redis-benchmark run, chunks in use are let fall to this share of the heap's (1/4), or 12 s. */
    private static final int SETTLED_SHARE = 4;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final int members;
    private final long operations;
    private final PrintWriter progress;

    /** One value loaded into a server: how long its load took and its DEL at the end. */
    record Value(String server, String kind, long elements, long loadNanos, long delNanos)
    {
    }

    /** One server's values and its latencies of each of {@link #OPERATIONS}, on the small value then the large. */
    record Sized(String server, List<Value> values, Map<String, Histogram[]> latencies)
    {
    }

    /**
     * What the memory node's heap went through: chunks handed out and not yet taken back, at their highest while
     * redis-benchmark ran and in the whole part, and at points between; chunks refused for a full heap.
     */
    record Heap(int chunks, int chunkBytes, long settledMs, int highestBenchmark, int afterBenchmark, int beforeLoad,
        int afterLoad, int afterWait, int afterTimed, int atEnd, int highest, long refused)
    {
    }

    record Result(List<RedisBenchmarkRows.Row> rows, int members, Sized dkv, Sized redis, Heap heap,
        String nodeErrors, String redisVersion, int ioThreads)
    {
    }

    /**
     * @param requests   redis-benchmark's requests at -c 1 (4x at -c 50, 16x at -c 50 -P 16).
     * @param members    elements of the large sorted set and of the large list.
     * @param operations requests of each timed operation on each value.
     */
    OrderedPart(final RedisBenchmarkTool tool, final Path redisBinary, final long requests, final long keyspace,
        final int valueBytes, final int members, final long operations, final PrintWriter progress)
    {
        this.tool = tool;
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.keyspace = keyspace;
        this.valueBytes = valueBytes;
        this.members = members;
        this.operations = operations;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final int ioThreads = ComputeNodeConfiguration.IO_THREADS_DEFAULT;
        // every change rewrites a path of nodes (up to 4 KiB each; a sorted set's in two trees, 3 deep at 10^6
        // elements) and the header, and a transaction's intents carry new and prior values: room for the blocks the
        // grace period holds, at a quarter of the machine's memory at most (which is what a long run gets)
        final long changes = requests * 21 * TESTS.size() + 2L * members + 8 * operations;
        final var memoryNode = InProcessStore.sizedFor(keyspace + members / 10 + 10_000,
            changes * 8 * 2 * KvBlockLayout.blockLength(24, NODE_BYTES), ioThreads);
        final List<RedisBenchmarkRows.Row> rows = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(memoryNode);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary);
            HeapWatch watch = new HeapWatch(store.memoryNode()))
        {
            progress.printf("ordered: an untimed round of each test at -c 1 against both servers (the compute " +
                "node's code paths compiled before the timed runs)...%n");
            progress.flush();
            for (final RedisBenchmarkRows.Test test : TESTS)
            {
                RedisBenchmarkRows.run(tool, node.port(), redis.port(), Setting.ALL.getFirst(), List.of(test),
                    requests, keyspace, valueBytes);
            }
            long settledMs = 0;
            for (final Setting setting : Setting.ALL)
            {
                // each setting from no list and no sorted set, on both servers alike: a run stopped at an error
                // leaves what it did not pop
                deleteBenchmarkKeys(node.port(), redis.port());
                for (final RedisBenchmarkRows.Test test : TESTS)
                {
                    // the grace period holds every block a run replaced for 10 s: a hot sorted set's -P 16 run
                    // fills most of the heap, and the next run must not start where it left it
                    settledMs += watch.settle(memoryNode.heapChunks() / SETTLED_SHARE, SizedRuns.QUIET_MS);
                    progress.printf("ordered %s: %,d %s against the compute node, then redis-server (heap chunks " +
                        "in use %,d)...%n", setting.label(), requests * setting.multiplier(), test.label(),
                        watch.inUse());
                    progress.flush();
                    rows.addAll(RedisBenchmarkRows.run(tool, node.port(), redis.port(), setting, List.of(test),
                        requests, keyspace, valueBytes));
                }
            }
            final int highestBenchmark = watch.highest();
            final int afterBenchmark = watch.inUse();
            deleteBenchmarkKeys(node.port(), redis.port());
            progress.printf("ordered: waiting %,d ms for the runs' garbage to go before the loads (heap chunks in " +
                "use %,d)...%n", SizedRuns.QUIET_MS, afterBenchmark);
            progress.flush();
            Thread.sleep(SizedRuns.QUIET_MS);
            final int beforeLoad = watch.inUse();
            final int[] marks = new int[3];
            final Sized dkv = sized("dkv", RedisServer.HOST + ":" + node.port(), watch, marks);
            final Sized baseline = sized("redis", RedisServer.HOST + ":" + redis.port(), null, null);
            final Heap heap = new Heap(memoryNode.heapChunks(), memoryNode.chunkBytes(), settledMs, highestBenchmark,
                afterBenchmark, beforeLoad, marks[0], marks[1], marks[2], watch.inUse(), watch.highest(),
                store.memoryNode().counters().get(MemoryNodeCounter.HEAP_FULL).get());
            return new Result(rows, members, dkv, baseline, heap, errorStats(RedisServer.HOST + ":" + node.port()),
                redis.version(), ioThreads);
        }
    }

    /**
     * Load a sorted set and a list of 10 elements and of {@link #members} into the server, wait out the memory node's
     * grace period (as collections does: the load's garbage is taken back meanwhile; redis-server has none to wait
     * out), then time each of {@link #OPERATIONS}, the
     * small and the large value taking turns by runs of {@link SizedRuns#TURN}; check the sizes, then DEL each.
     *
     * @param watch the memory node's heap, or null for redis-server.
     * @param marks where the chunks in use after the loads, after the wait and after the timed operations go, or
     *              null.
     */
    private Sized sized(final String server, final String endpoint, final HeapWatch watch, final int[] marks)
        throws InterruptedException
    {
        final int[] sizes = {SMALL, members};
        final byte[][] sets = new byte[2][];
        final byte[][] lists = new byte[2][];
        final long[][] loadNanos = new long[2][2];
        final SplittableRandom random = new SplittableRandom(members);
        final String label = "ordered: " + server;
        try (RespSocket socket = new RespSocket(endpoint, SizedRuns.TIMEOUT_MS))
        {
            for (int v = 0; v < 2; v++)
            {
                sets[v] = bytes("bench:zset:" + sizes[v]);
                loadNanos[0][v] = SizedRuns.load(socket, progress, label, "a " + SORTED_SET, bytes("ZADD"), sets[v],
                    sizes[v], e -> new byte[][] {score(random), member(e)});
            }
            for (int v = 0; v < 2; v++)
            {
                lists[v] = bytes("bench:list:" + sizes[v]);
                loadNanos[1][v] = SizedRuns.load(socket, progress, label, "a " + LIST, bytes("RPUSH"), lists[v],
                    sizes[v], e -> new byte[][] {bytes("element:" + e)});
            }
            if (marks != null)
            {
                marks[0] = watch.inUse();
            }
            // redis-server has no grace period to wait out: only the memory node's replaced blocks come back later
            final long quietMs = watch == null ? 0 : SizedRuns.QUIET_MS;
            progress.printf("%s, waiting %,d ms for the load's garbage to go; then %,d of each operation on each " +
                "value, in turns...%n", label, quietMs, operations);
            progress.flush();
            Thread.sleep(quietMs);
            if (marks != null)
            {
                marks[1] = watch.inUse();
            }
            final Map<String, Histogram[]> latencies = new LinkedHashMap<>();
            for (final String operation : OPERATIONS)
            {
                latencies.put(operation, new Histogram[] {SizedRuns.histogram(), SizedRuns.histogram()});
            }
            final Timed timed = new Timed(socket, server, label, latencies);
            timed.phase(new Step(ZADD, v -> new byte[][] {bytes("ZADD"), sets[v], score(random),
                member(random.nextInt(sizes[v]))}, (v, reply) -> Long.valueOf(0).equals(reply)));
            timed.phase(new Step(ZSCORE, v -> new byte[][] {bytes("ZSCORE"), sets[v], member(random.nextInt(sizes[v]))},
                (v, reply) -> reply instanceof byte[]));
            timed.phase(new Step(ZRANK, v -> new byte[][] {bytes("ZRANK"), sets[v], member(random.nextInt(sizes[v]))},
                (v, reply) -> reply instanceof Long));
            timed.phase(new Step(ZRANGE, v -> range("ZRANGE", sets[v], random.nextInt(sizes[v] - 9), 10),
                (v, reply) -> reply instanceof List<?> list && list.size() == 10));
            timed.phase(new Step(LINDEX, v -> new byte[][] {bytes("LINDEX"), lists[v],
                bytes(Integer.toString(random.nextInt(sizes[v])))}, (v, reply) -> reply instanceof byte[]));
            timed.phase(new Step(LRANGE, v -> range("LRANGE", lists[v], random.nextInt(Math.max(1, sizes[v] - 99)),
                100), (v, reply) -> reply instanceof List<?> list && list.size() == Math.min(100, sizes[v])));
            timed.phase(new Step(LPUSH, v -> new byte[][] {bytes("LPUSH"), lists[v], bytes("pushed")},
                (v, reply) -> Long.valueOf(sizes[v] + 1L).equals(reply)),
                new Step(RPOP, v -> new byte[][] {bytes("RPOP"), lists[v]}, (v, reply) -> reply instanceof byte[]));
            if (marks != null)
            {
                marks[2] = watch.inUse();
            }
            final List<Value> values = new ArrayList<>();
            for (int v = 0; v < 2; v++)
            {
                values.add(new Value(server, SORTED_SET, sizes[v], loadNanos[0][v],
                    checkedDel(socket, server, "ZCARD", sets[v], sizes[v])));
                values.add(new Value(server, LIST, sizes[v], loadNanos[1][v],
                    checkedDel(socket, server, "LLEN", lists[v], sizes[v])));
            }
            return new Sized(server, values, latencies);
        }
    }

    /** One request of a timed phase: what it sends to value {@code v} (0 the small, 1 the large), what it expects. */
    private record Step(String operation, IntFunction<byte[][]> request, BiPredicate<Integer, Object> expected)
    {
    }

    /** The timed phases on one server, each step's latencies recorded by the value it went to. */
    private final class Timed
    {
        private final RespSocket socket;
        private final String server;
        private final String label;
        private final Map<String, Histogram[]> latencies;

        Timed(final RespSocket socket, final String server, final String label,
            final Map<String, Histogram[]> latencies)
        {
            this.socket = socket;
            this.server = server;
            this.label = label;
            this.latencies = latencies;
        }

        /** {@link #operations} times the steps, one after the other, on each value, the two taking turns. */
        void phase(final Step... steps)
        {
            progress.printf("%s, %s: %,d on each value...%n", label,
                String.join(" then ", Arrays.stream(steps).map(Step::operation).toList()), operations);
            progress.flush();
            SizedRuns.inTurns(operations, 2, (v, i) ->
            {
                for (final Step step : steps)
                {
                    final byte[][] request = step.request().apply(v);
                    final long one = System.nanoTime();
                    final Object reply = socket.call(request);
                    SizedRuns.record(latencies.get(step.operation())[v], one);
                    if (!step.expected().test(v, reply))
                    {
                        throw new IllegalStateException(server + " answered " + describe(reply) + " to " +
                            String.join(" ", Arrays.stream(request).map(OrderedPart::text).toList()));
                    }
                }
            });
        }
    }

    /** DEL of redis-benchmark's list and sorted set, at the compute node and at redis-server. */
    private static void deleteBenchmarkKeys(final int... ports)
    {
        for (final int port : ports)
        {
            try (RespSocket socket = new RespSocket(RedisServer.HOST + ":" + port, SizedRuns.TIMEOUT_MS))
            {
                socket.call(bytes("DEL"), bytes("mylist"), bytes("myzset"));
            }
        }
    }

    /** @return how long DEL of {@code key} took, once {@code count} (ZCARD, LLEN) found it of {@code size}. */
    private long checkedDel(final RespSocket socket, final String server, final String count, final byte[] key,
        final int size)
    {
        final Object found = socket.call(bytes(count), key);
        if (!Long.valueOf(size).equals(found))
        {
            throw new IllegalStateException(server + "'s " + count + " " + text(key) + " answered " +
                describe(found) + " where it loaded " + size);
        }
        final long begun = System.nanoTime();
        socket.call(bytes("DEL"), key);
        final long nanos = System.nanoTime() - begun;
        progress.printf("ordered: %s, DEL %s took %,.1f ms%n", server, text(key), nanos / 1e6);
        progress.flush();
        return nanos;
    }

    /** @return the node's INFO errorstats, its lines joined by "; ", empty when it answered none. */
    private static String errorStats(final String endpoint)
    {
        try (RespSocket socket = new RespSocket(endpoint, SizedRuns.TIMEOUT_MS))
        {
            final String info = new String((byte[])socket.call(bytes("INFO"), bytes("errorstats")),
                StandardCharsets.US_ASCII);
            return String.join("; ", info.lines().filter(line -> line.startsWith("errorstat_")).toList());
        }
    }

    private static byte[][] range(final String verb, final byte[] key, final int from, final int count)
    {
        return new byte[][] {bytes(verb), key, bytes(Integer.toString(from)),
            bytes(Integer.toString(from + count - 1))};
    }

    private static byte[] score(final SplittableRandom random)
    {
        return bytes(Double.toString(random.nextDouble()));
    }

    private static byte[] member(final int m)
    {
        return bytes("member:" + m);
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static String describe(final Object reply)
    {
        return reply instanceof byte[] bytes ? "\"" + text(bytes) + "\"" :
            reply instanceof List<?> list ? list.size() + " elements" : String.valueOf(reply);
    }

    /**
     * The memory node's heap chunks in use (handed out and not yet taken back), sampled every 100 ms for their
     * highest.
     */
    private static final class HeapWatch implements AutoCloseable
    {
        private final MemoryNode node;
        private final Thread thread;
        private volatile boolean stopped;
        private volatile int highest;

        HeapWatch(final MemoryNode node)
        {
            this.node = node;
            thread = Thread.ofPlatform().daemon().name("ordered-heap-watch").start(this::watch);
        }

        int inUse()
        {
            return (int)(node.chunksAllocated() - node.chunksReclaimed());
        }

        int highest()
        {
            return Math.max(highest, inUse());
        }

        /**
         * Wait while more than {@code chunks} chunks are in use, for at most {@code maxMs}.
         *
         * @return how long it waited, in milliseconds.
         */
        long settle(final int chunks, final long maxMs)
        {
            final long started = System.nanoTime();
            final long deadline = started + TimeUnit.MILLISECONDS.toNanos(maxMs);
            while (inUse() > chunks && System.nanoTime() < deadline)
            {
                LockSupport.parkNanos(WATCH_NANOS);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        }

        private void watch()
        {
            while (!stopped)
            {
                highest = Math.max(highest, inUse());
                LockSupport.parkNanos(WATCH_NANOS);
            }
        }

        public void close() throws InterruptedException
        {
            stopped = true;
            thread.join();
        }
    }

    static List<ReportSection> sections(final Result result)
    {
        final TextTable sizes = new TextTable(List.of(
            new TextTable.Column("operation", false),
            new TextTable.Column("elements", true),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("p50 dkv/redis", true),
            new TextTable.Column("dkv p50 large/10", true),
            new TextTable.Column("redis p50 large/10", true)));
        for (final String operation : OPERATIONS)
        {
            final Histogram[] dkv = result.dkv().latencies().get(operation);
            final Histogram[] redis = result.redis().latencies().get(operation);
            for (int v = 0; v < 2; v++)
            {
                sizes.addRow(operation, String.format(Locale.ROOT, "%,d", v == 0 ? SMALL : result.members()),
                    SizedRuns.micros(dkv[v], 50), SizedRuns.micros(dkv[v], 99), SizedRuns.micros(redis[v], 50),
                    SizedRuns.micros(redis[v], 99), ratio(SizedRuns.p50(dkv[v]) / SizedRuns.p50(redis[v])),
                    v == 0 ? "-" : ratio(SizedRuns.p50(dkv[1]) / SizedRuns.p50(dkv[0])),
                    v == 0 ? "-" : ratio(SizedRuns.p50(redis[1]) / SizedRuns.p50(redis[0])));
            }
        }
        final TextTable loads = new TextTable(List.of(
            new TextTable.Column("server", false),
            new TextTable.Column("value", false),
            new TextTable.Column("elements", true),
            new TextTable.Column("load s", true),
            new TextTable.Column("elements/s", true),
            new TextTable.Column("DEL ms", true)));
        for (final Sized server : List.of(result.dkv(), result.redis()))
        {
            for (final Value value : server.values())
            {
                loads.addRow(value.server(), value.kind(), String.format(Locale.ROOT, "%,d", value.elements()),
                    String.format(Locale.ROOT, "%.1f", value.loadNanos() / 1e9),
                    String.format(Locale.ROOT, "%,.0f", value.elements() * 1e9 / value.loadNanos()),
                    String.format(Locale.ROOT, "%,.1f", value.delNanos() / 1e6));
            }
        }
        final Heap heap = result.heap();
        final String heapNote = String.format(Locale.ROOT, "the memory node's heap: %,d chunks of %,d KiB; in use " +
            "(handed out, not yet taken back): at most %,d during redis-benchmark's runs (before each, up to 12 s " +
            "waited for them to fall to a quarter: %.1f s in all), %,d after them, %,d after a 12 s wait, %,d after " +
            "dkv's loads, %,d after the 12 s wait, %,d after the timed operations, %,d at the end (dkv's values " +
            "deleted, redis-server's part run meanwhile), at most %,d in the whole part; chunks refused for a full " +
            "heap: %,d", heap.chunks(), heap.chunkBytes() / 1024, heap.highestBenchmark(), heap.settledMs() / 1e3,
            heap.afterBenchmark(), heap.beforeLoad(), heap.afterLoad(), heap.afterWait(), heap.afterTimed(),
            heap.atEnd(), heap.highest(), heap.refused());
        final String errorsNote = "the compute node's INFO errorstats at the end: " +
            (result.nodeErrors().isEmpty() ? "none" : result.nodeErrors());
        final List<String> notes = new ArrayList<>(List.of(RedisBenchmarkRows.NOTE,
            "after an untimed round of each test at -c 1, one redis-benchmark run a test and setting, compute node " +
                "first, each setting from DEL of mylist and myzset, in redis-benchmark's order: LPUSH and " +
                "RPUSH onto one list (mylist) that LPOP and RPOP then empty, ZADD of random members (element:N, " +
                "N < -r) with random scores to one sorted set (myzset) that ZPOPMIN then pops as many times; " +
                "LRANGE_100 (LRANGE mylist 0 99) after redis-benchmark's own LPUSH of as many elements (not shown)",
            "each request is a transaction on its key's header in dkv, so the 50 connections' requests conflict and " +
                "run again; redis-server runs them one after another in one thread",
            heapNote, errorsNote));
        notes.addAll(RedisBenchmarkRows.errors(result.rows()));
        return List.of(new ReportSection(TITLE, notes, RedisBenchmarkRows.table(result.rows())),
            new ReportSection(SIZE_TITLE, List.of(
                "one connection, one request at a time, the small and the large value taking turns by 1,000 " +
                    "requests, after a wait of 12 s that the load's garbage is taken back in; a seeded random",
                "ZADD: an existing random member with a new random score (answers 0); ZSCORE, ZRANK: a random " +
                    "member; ZRANGE r r+9: 10 members from a random rank r (on the set of 10 r = 0); LINDEX: a " +
                    "random index; LRANGE r r+99: 100 elements from a random index (on the list of 10: its 10); " +
                    "LPUSH then RPOP: one element pushed at the head and one popped at the tail, each timed, the " +
                    "size kept",
                "p50 dkv/redis: dkv's p50 over redis-server's at that size, lower is better; large/10: the large " +
                    "value's p50 over the small one's, on the same server"), sizes),
            new ReportSection(LOAD_TITLE, List.of(
                "each sorted set is loaded by ZADDs of 1,000 members (member:i, a random score in [0, 1)), each list " +
                    "by RPUSHes of 1,000 elements (element:i), one command at a time from one connection; DEL: one " +
                    "at the end, after ZCARD or LLEN checked the size"),
                loads));
    }
}

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
import java.util.concurrent.atomic.AtomicReference;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * The multi-key commands against redis-server, one after the other on the same machine in the same run:
 * redis-benchmark's MSET (10 keys), which a compute node runs as one transaction, and transfers between two keys by
 * WATCH, GET, GET, MULTI, SET, SET, EXEC (again on a nil EXEC), from client threads of this process. After the
 * transfers of each store, the balances are read and must sum to what was loaded: a transfer seen in part fails
 * the run.
 */
final class MultiPart
{
    static final String MSET_TITLE = "MSET: redis-benchmark's MSET (10 keys), a compute node against redis-server";
    static final String WATCH_TITLE =
        "WATCH and MULTI/EXEC: transfers between two keys, a compute node against redis-server";
    static final String MSET_TEST = "MSET (10 keys)";
    static final List<Setting> MSET_SETTINGS = List.of(new Setting(1, 1, 1), new Setting(50, 1, 4));
    /** Transfer settings: connections, and accounts picked from (0: {@code --accounts}). */
    static final int[][] TRANSFER_SETTINGS = {{1, 0}, {8, 0}, {8, 16}};
    private static final long BALANCE = 1_000;
    private static final int TIMEOUT_MS = 30_000;
    private static final long HIGHEST_NANOS = 60_000_000_000L;
    private static final int LOAD_CHUNK = 500;

    private final RedisBenchmarkTool tool;
    private final Path redisBinary;
    private final long requests;
    private final long keyspace;
    private final int valueBytes;
    private final long transfers;
    private final int accounts;
    private final PrintWriter progress;

    record MsetRow(Setting setting, RedisBenchmarkFigures dkv, RedisBenchmarkFigures redis)
    {
    }

    /** One store's transfers at one setting: how many, how many EXECs came back nil, how long, each one's latency. */
    record Transfers(long done, long retries, long nanos, Histogram latency)
    {
        double rate()
        {
            return done * 1e9 / nanos;
        }
    }

    record TransferRow(int connections, int accounts, Transfers dkv, Transfers redis)
    {
    }

    record Result(List<MsetRow> mset, List<TransferRow> transfers, String redisVersion, int ioThreads)
    {
    }

    /**
     * @param requests  MSETs of redis-benchmark's run at -c 1 (4x at -c 50).
     * @param transfers transfers of each setting, all connections together.
     * @param accounts  keys the transfers pick from (a hot setting picks from 16).
     */
    MultiPart(final RedisBenchmarkTool tool, final Path redisBinary, final long requests, final long keyspace,
        final int valueBytes, final long transfers, final int accounts, final PrintWriter progress)
    {
        this.tool = tool;
        this.redisBinary = redisBinary;
        this.requests = requests;
        this.keyspace = keyspace;
        this.valueBytes = valueBytes;
        this.transfers = transfers;
        this.accounts = accounts;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final int ioThreads = ComputeNodeConfiguration.IO_THREADS_DEFAULT;
        long blocks = 0;
        for (final Setting setting : MSET_SETTINGS)
        {
            // each MSET writes 10 keys: an intent, a commit record and a value each at most (intents hold a list)
            blocks += 10 * 3 * requests * setting.multiplier();
        }
        blocks += 8 * transfers * TRANSFER_SETTINGS.length + accounts;
        final var memoryNode = InProcessStore.sizedFor(Math.max(keyspace, accounts),
            blocks * KvBlockLayout.blockLength(16, 2 * valueBytes + 256), ioThreads);
        final List<MsetRow> msets = new ArrayList<>();
        final List<TransferRow> rows = new ArrayList<>();
        try (InProcessStore store = InProcessStore.start(memoryNode);
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary))
        {
            for (final Setting setting : MSET_SETTINGS)
            {
                progress.printf("multi %s: %,d MSET of 10 keys against the compute node, then redis-server...%n",
                    setting.label(), requests * setting.multiplier());
                progress.flush();
                final var dkv = tool.tests(RedisServer.HOST, node.port(), setting, "mset", List.of(MSET_TEST),
                    requests, keyspace, valueBytes);
                final var baseline = tool.tests(RedisServer.HOST, redis.port(), setting, "mset", List.of(MSET_TEST),
                    requests, keyspace, valueBytes);
                msets.add(new MsetRow(setting, dkv.get(MSET_TEST), baseline.get(MSET_TEST)));
            }
            for (final int[] setting : TRANSFER_SETTINGS)
            {
                final int connections = setting[0];
                final int picked = setting[1] == 0 ? accounts : setting[1];
                progress.printf("multi: %,d transfers over %,d accounts by %d connections against the compute node, " +
                    "then redis-server...%n", transfers, picked, connections);
                progress.flush();
                final Transfers dkv = transfers(RedisServer.HOST + ":" + node.port(), connections, picked);
                final Transfers baseline = transfers(RedisServer.HOST + ":" + redis.port(), connections, picked);
                rows.add(new TransferRow(connections, picked, dkv, baseline));
            }
            return new Result(msets, rows, redis.version(), ioThreads);
        }
    }

    /** Load the accounts, run the transfers over {@code connections}, and check that the balances still add up. */
    private Transfers transfers(final String endpoint, final int connections, final int picked)
        throws InterruptedException
    {
        final byte[][] keys = new byte[picked][];
        for (int i = 0; i < picked; i++)
        {
            keys[i] = ("acct:" + i).getBytes(StandardCharsets.US_ASCII);
        }
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            for (int from = 0; from < picked; from += LOAD_CHUNK)
            {
                final int to = Math.min(picked, from + LOAD_CHUNK);
                final byte[][] args = new byte[1 + 2 * (to - from)][];
                args[0] = bytes("MSET");
                for (int i = from; i < to; i++)
                {
                    args[1 + 2 * (i - from)] = keys[i];
                    args[2 + 2 * (i - from)] = bytes(Long.toString(BALANCE));
                }
                socket.call(args);
            }
        }
        final Histogram latency = new Histogram(HIGHEST_NANOS, 3);
        final long[] retries = new long[connections];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        final long started = System.nanoTime();
        for (int c = 0; c < connections; c++)
        {
            final int index = c;
            final long count = transfers / connections + (c < transfers % connections ? 1 : 0);
            threads.add(Thread.ofPlatform().name("bench-transfers-" + c).start(() ->
            {
                final Histogram mine = new Histogram(HIGHEST_NANOS, 3);
                try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
                {
                    final SplittableRandom random = new SplittableRandom(35_000L + index);
                    for (long t = 0; t < count; t++)
                    {
                        final int from = random.nextInt(picked);
                        final int to = (from + 1 + random.nextInt(picked - 1)) % picked;
                        final long begun = System.nanoTime();
                        retries[index] += transfer(socket, keys[from], keys[to]);
                        mine.recordValue(Math.min(HIGHEST_NANOS, System.nanoTime() - begun));
                    }
                }
                catch (final RuntimeException ex)
                {
                    failure.compareAndSet(null, ex);
                }
                synchronized (latency)
                {
                    latency.add(mine);
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        final long nanos = System.nanoTime() - started;
        if (failure.get() != null)
        {
            throw new IllegalStateException("transfers against " + endpoint + " failed: " + failure.get(),
                failure.get());
        }
        checkBalances(endpoint, keys);
        long retried = 0;
        for (final long r : retries)
        {
            retried += r;
        }
        return new Transfers(transfers, retried, nanos, latency);
    }

    /** @return the nil EXECs (a watched key changed) before the one that went through. */
    private static long transfer(final RespSocket socket, final byte[] from, final byte[] to)
    {
        for (long attempt = 0; ; attempt++)
        {
            socket.call(bytes("WATCH"), from, to);
            final long fromBalance = balance(socket.call(bytes("GET"), from));
            final long toBalance = balance(socket.call(bytes("GET"), to));
            socket.call(bytes("MULTI"));
            socket.call(bytes("SET"), from, bytes(Long.toString(fromBalance - 1)));
            socket.call(bytes("SET"), to, bytes(Long.toString(toBalance + 1)));
            if (socket.call(bytes("EXEC")) != null)
            {
                return attempt;
            }
        }
    }

    private static void checkBalances(final String endpoint, final byte[][] keys)
    {
        long sum = 0;
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            for (final byte[] key : keys)
            {
                sum += balance(socket.call(bytes("GET"), key));
            }
        }
        if (sum != BALANCE * keys.length)
        {
            throw new IllegalStateException("the " + keys.length + " balances at " + endpoint + " sum to " + sum +
                " after the transfers, not " + BALANCE * keys.length + ": a transfer was seen in part");
        }
    }

    private static long balance(final Object reply)
    {
        if (!(reply instanceof byte[] value))
        {
            throw new IllegalStateException("a balance read as " + reply + ", not a number");
        }
        return Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    static List<ReportSection> sections(final Result result)
    {
        final TextTable mset = new TextTable(List.of(
            new TextTable.Column("setting", false),
            new TextTable.Column("dkv ops/s", true),
            new TextTable.Column("redis ops/s", true),
            new TextTable.Column("ops/s ratio", true),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true)));
        for (final MsetRow row : result.mset())
        {
            mset.addRow(row.setting().label(), opsPerSecond(row.dkv().rps()), opsPerSecond(row.redis().rps()),
                ratio(row.dkv().rps() / row.redis().rps()), ThroughputPart.micros(row.dkv().p50Ms()),
                ThroughputPart.micros(row.redis().p50Ms()), ThroughputPart.micros(row.dkv().p99Ms()),
                ThroughputPart.micros(row.redis().p99Ms()));
        }
        final TextTable watch = new TextTable(List.of(
            new TextTable.Column("connections", false),
            new TextTable.Column("accounts", true),
            new TextTable.Column("dkv transfers/s", true),
            new TextTable.Column("redis transfers/s", true),
            new TextTable.Column("ratio", true),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("dkv nil EXECs", true),
            new TextTable.Column("redis nil EXECs", true)));
        for (final TransferRow row : result.transfers())
        {
            watch.addRow(Integer.toString(row.connections()), count(row.accounts()),
                opsPerSecond(row.dkv().rate()), opsPerSecond(row.redis().rate()),
                ratio(row.dkv().rate() / row.redis().rate()),
                ThroughputPart.micros(row.dkv().latency().getValueAtPercentile(50) / 1e6),
                ThroughputPart.micros(row.redis().latency().getValueAtPercentile(50) / 1e6),
                ThroughputPart.micros(row.dkv().latency().getValueAtPercentile(99) / 1e6),
                ThroughputPart.micros(row.redis().latency().getValueAtPercentile(99) / 1e6),
                count(row.dkv().retries()),
                count(row.redis().retries()));
        }
        return List.of(
            new ReportSection(MSET_TITLE, List.of(
                "ops/s ratio: dkv's over redis-server's, higher is better; latencies are redis-benchmark's, per " +
                    "request; a compute node's MSET is one transaction over its 10 keys"), mset),
            new ReportSection(WATCH_TITLE, List.of(
                "a transfer: WATCH a b, GET a, GET b, MULTI, SET a, SET b, EXEC, again from WATCH while EXEC answers " +
                    "nil; its latency from the first WATCH to the EXEC that went through; the balances checked " +
                    "after each store's run (they must sum to what was loaded)"), watch));
    }

    /** @return the goal line: MSET's ops/s at least redis-server's at every setting. */
    static List<String> goals(final Result result)
    {
        MsetRow lowest = null;
        for (final MsetRow row : result.mset())
        {
            if (lowest == null || row.dkv().rps() / row.redis().rps() < lowest.dkv().rps() / lowest.redis().rps())
            {
                lowest = row;
            }
        }
        final double lowestRatio = lowest.dkv().rps() / lowest.redis().rps();
        return List.of(String.format(Locale.ROOT, "compute node MSET (10 keys) ops/s >= 1.0x redis-server's at " +
            "every setting: %s (lowest %.2fx, %s)", lowestRatio >= 1.0 ? "MET" : "MISSED", lowestRatio,
            lowest.setting().label()));
    }
}

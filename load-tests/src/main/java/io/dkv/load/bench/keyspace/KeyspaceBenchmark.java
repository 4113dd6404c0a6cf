package io.dkv.load.bench.keyspace;

import io.dkv.client.KvClient;
import io.dkv.client.keyspace.ScanCursor;
import io.dkv.client.keyspace.ScanPage;
import io.dkv.compute.ComputeNode;
import io.dkv.compute.ComputeNodeContext;
import io.dkv.format.KvBlockLayout;
import io.dkv.load.bench.MachineInfo;
import io.dkv.load.bench.MarkdownOption;
import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.SectionedReport;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.InProcessStore;
import io.dkv.load.bench.ycsb.RedisServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scan of every key, DBSIZE and FLUSHALL over a keyspace of a million keys: through the client (KvClient.scan) and
 * through a compute node (Jedis), each beside redis-server's over the same keys in the same run.
 */
@Command(name = "keyspace", mixinStandardHelpOptions = true,
    description = {
        "A whole SCAN of a keyspace (a million keys by default) through the client and through a compute node, " +
            "DBSIZE and FLUSHALL, each beside redis-server's over the same keys, as a ratio.",
        "An in-process store of one memory node (shm); redis-server from the PATH (apt-get install redis-server)."
    })
public final class KeyspaceBenchmark implements Callable<Integer>
{
    static final String TITLE = "dkv bench keyspace";

    @Spec
    private CommandSpec spec;

    @Option(names = "--keys", defaultValue = "1000000", description = "Keys loaded (default: ${DEFAULT-VALUE}).")
    private int keys;

    @Option(names = "--count", defaultValue = "1000",
        description = "COUNT of each SCAN step (default: ${DEFAULT-VALUE}).")
    private int count;

    @Option(names = "--value-bytes", defaultValue = "100", description = "Bytes of each value (default: " +
        "${DEFAULT-VALUE}).")
    private int valueBytes;

    @Mixin
    private MarkdownOption markdown;

    /** One measured operation: its time at dkv and at redis-server, and the keys each found. */
    private record Row(String operation, long dkvNanos, long dkvKeys, long redisNanos, long redisKeys)
    {
    }

    public Integer call() throws Exception
    {
        if (keys < 1 || count < 1 || valueBytes < 0)
        {
            throw new IllegalArgumentException("--keys " + keys + ", --count " + count + ", --value-bytes " +
                valueBytes + ": out of range");
        }
        final Optional<Path> redisBinary = RedisServer.find();
        if (redisBinary.isEmpty())
        {
            throw new IllegalStateException("needs " + RedisServer.BINARY + " (" + RedisServer.INSTALL_HINT + ")");
        }
        final PrintWriter err = spec.commandLine().getErr();
        final byte[] value = new byte[valueBytes];
        Arrays.fill(value, (byte)'v');
        final List<Row> rows = new ArrayList<>();
        final long blockBytes = (long)keys * KvBlockLayout.blockLength(12, valueBytes) * 2;
        try (InProcessStore store = InProcessStore.start(InProcessStore.sizedFor(keys, blockBytes, 2));
            ComputeNode node = ComputeNode.start(new ComputeNodeContext().port(0).bindAddress(RedisServer.HOST)
                .client(store.client()));
            RedisServer redis = RedisServer.start(redisBinary.get());
            Jedis toNode = new Jedis(RedisServer.HOST, node.port(), 600_000);
            Jedis toRedis = new Jedis(RedisServer.HOST, redis.port(), 600_000))
        {
            load(store.client(), value, err);
            loadRedis(toRedis, value, err);
            err.printf("keyspace: scanning %,d keys, COUNT %d...%n", keys, count);
            err.flush();
            final long[] client = clientScan(store.client());
            final long[] viaNode = respScan(toNode);
            final long[] viaRedis = respScan(toRedis);
            rows.add(new Row("SCAN, every step, through the client (KvClient.scan)", client[0], client[1],
                viaRedis[0], viaRedis[1]));
            rows.add(new Row("SCAN, every step, through a compute node (Jedis)", viaNode[0], viaNode[1],
                viaRedis[0], viaRedis[1]));
            long started = System.nanoTime();
            final long nodeSize = toNode.dbSize();
            final long nodeNanos = System.nanoTime() - started;
            started = System.nanoTime();
            final long redisSize = toRedis.dbSize();
            rows.add(new Row("DBSIZE", nodeNanos, nodeSize, System.nanoTime() - started, redisSize));
            err.printf("keyspace: FLUSHALL of %,d keys...%n", keys);
            err.flush();
            started = System.nanoTime();
            toNode.flushAll();
            final long nodeFlush = System.nanoTime() - started;
            started = System.nanoTime();
            toRedis.flushAll();
            final long redisFlush = System.nanoTime() - started;
            // the keys left after each flush: none
            rows.add(new Row("FLUSHALL (keys left after it)", nodeFlush, toNode.dbSize(), redisFlush,
                toRedis.dbSize()));
        }
        markdown.publish(report(rows), spec.commandLine().getOut());
        spec.commandLine().getOut().flush();
        return 0;
    }

    private void load(final KvClient client, final byte[] value, final PrintWriter err) throws InterruptedException
    {
        err.printf("keyspace: loading %,d keys into dkv...%n", keys);
        err.flush();
        final AtomicLong next = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++)
        {
            threads.add(Thread.ofPlatform().start(() ->
            {
                for (long k = next.getAndIncrement(); k < keys; k = next.getAndIncrement())
                {
                    client.put(key(k), value);
                    if (k > 0 && k % 200_000 == 0)
                    {
                        err.printf("keyspace: %,d keys loaded%n", k);
                        err.flush();
                    }
                }
            }));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
    }

    private void loadRedis(final Jedis redis, final byte[] value, final PrintWriter err)
    {
        err.printf("keyspace: loading %,d keys into redis-server...%n", keys);
        err.flush();
        final Pipeline pipeline = redis.pipelined();
        for (long k = 0; k < keys; k++)
        {
            pipeline.set(key(k), value);
            if (k % 10_000 == 9_999)
            {
                pipeline.sync();
            }
        }
        pipeline.sync();
    }

    /** @return {nanoseconds, keys found}. */
    private long[] clientScan(final KvClient client)
    {
        final long started = System.nanoTime();
        long found = 0;
        long cursor = ScanCursor.START;
        do
        {
            final ScanPage page = client.scan(cursor, count, null);
            found += page.keys().size();
            cursor = page.cursor();
        }
        while (cursor != ScanCursor.START);
        return new long[]{System.nanoTime() - started, found};
    }

    /** @return {nanoseconds, keys found}. */
    private long[] respScan(final Jedis jedis)
    {
        final ScanParams params = new ScanParams().count(count);
        final long started = System.nanoTime();
        long found = 0;
        String cursor = ScanParams.SCAN_POINTER_START;
        do
        {
            final ScanResult<String> page = jedis.scan(cursor, params);
            found += page.getResult().size();
            cursor = page.getCursor();
        }
        while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return new long[]{System.nanoTime() - started, found};
    }

    private static byte[] key(final long k)
    {
        return ("key:" + k).getBytes(StandardCharsets.US_ASCII);
    }

    private SectionedReport report(final List<Row> rows)
    {
        final TextTable table = new TextTable(List.of(new TextTable.Column("operation", false),
            new TextTable.Column("dkv ms", true), new TextTable.Column("dkv keys", true),
            new TextTable.Column("redis-server ms", true), new TextTable.Column("redis-server keys", true),
            new TextTable.Column("dkv / redis-server", true)));
        for (final Row row : rows)
        {
            table.addRow(row.operation(), String.format("%,.1f", row.dkvNanos() / 1e6), String.format("%,d",
                row.dkvKeys()), String.format("%,.1f", row.redisNanos() / 1e6), String.format("%,d", row.redisKeys()),
                String.format("%.2fx", (double)row.dkvNanos() / Math.max(1, row.redisNanos())));
        }
        return new SectionedReport(TITLE, MachineInfo.current(), List.of(
            String.format("%,d keys of %d B values, \"key:0\" on; dkv: an in-process store of one memory node (shm) " +
                "and a compute node over it; redis-server beside it with the same keys", keys, valueBytes),
            "SCAN: from cursor 0 until it is 0 again, COUNT " + count + "; DBSIZE: dkv's walks every index (it keeps " +
                "no counter), redis's reads its dictionary's size; FLUSHALL: dkv's scans and deletes each key, " +
                "redis's frees its dictionary (SYNC), each then asked DBSIZE"),
            List.of(new ReportSection("A whole scan, DBSIZE and FLUSHALL, dkv beside redis-server", List.of(
                "dkv / redis-server: the time's ratio, lower is better"), table)), List.of());
    }
}

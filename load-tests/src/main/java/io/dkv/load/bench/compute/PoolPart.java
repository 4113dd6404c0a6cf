package io.dkv.load.bench.compute;

import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;
import io.dkv.process.ReadyLines;
import io.dkv.process.RoleProcess;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

import static io.dkv.load.bench.Formats.micros;
import static io.dkv.load.bench.Formats.ratio;

/**
 * What compute nodes do together, against redis-server doing it alone, in the same run: PUBLISH to a subscriber of
 * another compute node (and of the same one), an RPUSH through one compute node waking a BLPOP blocked on another
 * (and on the same one), and EVAL of a script moving a unit between two keys. Two compute node processes join a
 * cluster of processes ({@link JoinCluster}); each round is timed from the request sent to the message (or the
 * BLPOP's reply) read by the other connection, an EVAL to its reply, one round at a time.
 */
final class PoolPart
{
    static final String TITLE = "Across compute nodes: PUBLISH to a subscriber, RPUSH to a blocked BLPOP, EVAL";
    private static final int TIMEOUT_MS = 30_000;
    private static final long HIGHEST_NANOS = 10_000_000_000L;

    private final Path redisBinary;
    private final int rounds;
    private final PrintWriter progress;

    /** One measurement: how it was done, dkv's latencies and redis-server's. */
    record Row(String what, Histogram dkv, Histogram redis)
    {
    }

    record Result(List<Row> rows, String redisVersion)
    {
    }

    /**
     * @param rounds timed rounds of each measurement, after as many untimed ones a tenth of it.
     */
    PoolPart(final Path redisBinary, final int rounds, final PrintWriter progress)
    {
        this.redisBinary = redisBinary;
        this.rounds = rounds;
        this.progress = progress;
    }

    Result run() throws IOException, InterruptedException
    {
        final Path directory = Files.createTempDirectory("dkv-bench-pool");
        final List<Row> rows = new ArrayList<>();
        final String version;
        try (RedisServer redis = RedisServer.start(redisBinary);
            JoinCluster cluster = JoinCluster.start(directory);
            RoleProcess first = startNode(cluster, directory, 1);
            RoleProcess second = startNode(cluster, directory, 2))
        {
            version = redis.version();
            final String redisAt = RedisServer.HOST + ":" + redis.port();
            final String one = "127.0.0.1:" + first.readyGroup(3);
            final String two = "127.0.0.1:" + second.readyGroup(3);
            progress.println("pool: PUBLISH, then BLPOP, " + rounds + " rounds each");
            progress.flush();
            rows.add(new Row("PUBLISH, subscriber on another node", publish(one, two), publish(redisAt, redisAt)));
            rows.add(new Row("PUBLISH, subscriber on the same node", publish(one, one), publish(redisAt, redisAt)));
            rows.add(new Row("RPUSH waking BLPOP, waiter on another node", wake(one, two), wake(redisAt, redisAt)));
            rows.add(new Row("RPUSH waking BLPOP, waiter on the same node", wake(one, one), wake(redisAt, redisAt)));
            rows.add(new Row("EVAL of a 2-key transfer script", eval(one), eval(redisAt)));
        }
        return new Result(rows, version);
    }

    private static RoleProcess startNode(final JoinCluster cluster, final Path directory, final int ordinal)
    {
        return RoleProcess.start("compute node " + ordinal, "256m", Map.of(),
            List.of("compute-node", "--port", "0", "--provider", JoinCluster.PROVIDER, "--meta", cluster.metaEndpoint(),
                "--cluster-secret-file", cluster.secretFile().toString()),
            ReadyLines.COMPUTE_NODE, directory.resolve("pool-compute-node-" + ordinal + ".log"));
    }

    /** PUBLISH through {@code publisherAt}, timed to the message read by a subscriber of {@code subscriberAt}. */
    private Histogram publish(final String publisherAt, final String subscriberAt)
    {
        try (RespSocket publisher = new RespSocket(publisherAt, TIMEOUT_MS);
            RespSocket subscriber = new RespSocket(subscriberAt, TIMEOUT_MS))
        {
            subscriber.call(bytes("SUBSCRIBE"), bytes("bench.pool"));
            return timed(round ->
            {
                final byte[] message = bytes("m" + round);
                final long start = System.nanoTime();
                publisher.send(bytes("PUBLISH"), bytes("bench.pool"), message);
                final List<?> pushed = (List<?>)subscriber.read();
                final long took = System.nanoTime() - start;
                final Object receivers = publisher.read();
                if (!new String((byte[])pushed.get(2), StandardCharsets.US_ASCII).equals("m" + round) ||
                    !Long.valueOf(1).equals(receivers))
                {
                    throw new IllegalStateException("round " + round + ": the subscriber read " + pushed +
                        ", PUBLISH answered " + receivers);
                }
                return took;
            });
        }
    }

    /** RPUSH through {@code writerAt}, timed to the reply read by a BLPOP blocked on {@code waiterAt}. */
    private Histogram wake(final String writerAt, final String waiterAt)
    {
        try (RespSocket writer = new RespSocket(writerAt, TIMEOUT_MS);
            RespSocket waiter = new RespSocket(waiterAt, TIMEOUT_MS);
            RespSocket info = new RespSocket(waiterAt, TIMEOUT_MS))
        {
            return timed(round ->
            {
                waiter.send(bytes("BLPOP"), bytes("bench.queue"), bytes("0"));
                // untimed: until the waiter's node counts it blocked
                while (!new String((byte[])info.call(bytes("INFO"), bytes("clients")), StandardCharsets.US_ASCII)
                    .contains("blocked_clients:1\r\n"))
                {
                    Thread.onSpinWait();
                }
                final long start = System.nanoTime();
                writer.send(bytes("RPUSH"), bytes("bench.queue"), bytes("j" + round));
                final List<?> popped = (List<?>)waiter.read();
                final long took = System.nanoTime() - start;
                writer.read();
                if (!new String((byte[])popped.get(1), StandardCharsets.US_ASCII).equals("j" + round))
                {
                    throw new IllegalStateException("round " + round + ": BLPOP answered " + popped);
                }
                return took;
            });
        }
    }

    /** A transfer between two keys as one script: two GETs, two SETs, the two balances answered. */
    static final String TRANSFER = "local a = tonumber(redis.call('GET', KEYS[1]) or '0') " +
        "local b = tonumber(redis.call('GET', KEYS[2]) or '0') " +
        "redis.call('SET', KEYS[1], a - 1) redis.call('SET', KEYS[2], b + 1) return {a, b}";

    /** EVAL of {@link #TRANSFER} on {@code at}, one at a time, timed to its reply. */
    private Histogram eval(final String at)
    {
        try (RespSocket client = new RespSocket(at, TIMEOUT_MS))
        {
            client.call(bytes("DEL"), bytes("bench.a"), bytes("bench.b"));
            return timed(round ->
            {
                final long start = System.nanoTime();
                final List<?> read = (List<?>)client.call(bytes("EVAL"), bytes(TRANSFER), bytes("2"),
                    bytes("bench.a"), bytes("bench.b"));
                final long took = System.nanoTime() - start;
                if (!Long.valueOf(-round).equals(read.get(0)))
                {
                    throw new IllegalStateException("round " + round + ": the transfer read " + read);
                }
                return took;
            });
        }
    }

    /** A round's latency in nanoseconds, given its number. */
    @FunctionalInterface
    private interface Round
    {
        long run(int round);
    }

    private Histogram timed(final Round round)
    {
        final Histogram histogram = new Histogram(HIGHEST_NANOS, 3);
        final int untimed = Math.max(1, rounds / 10);
        for (int i = 0; i < untimed + rounds; i++)
        {
            final long nanos = round.run(i);
            if (i >= untimed)
            {
                histogram.recordValue(Math.min(nanos, HIGHEST_NANOS));
            }
        }
        return histogram;
    }

    static ReportSection section(final Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("measurement", false),
            new TextTable.Column("dkv p50 us", true),
            new TextTable.Column("redis p50 us", true),
            new TextTable.Column("p50 ratio", true),
            new TextTable.Column("dkv p99 us", true),
            new TextTable.Column("redis p99 us", true),
            new TextTable.Column("p99 ratio", true)));
        for (final Row row : result.rows())
        {
            final LongSupplier dkv50 = () -> row.dkv().getValueAtPercentile(50);
            final LongSupplier redis50 = () -> row.redis().getValueAtPercentile(50);
            final LongSupplier dkv99 = () -> row.dkv().getValueAtPercentile(99);
            final LongSupplier redis99 = () -> row.redis().getValueAtPercentile(99);
            table.addRow(row.what(), micros(dkv50.getAsLong()), micros(redis50.getAsLong()),
                ratio((double)dkv50.getAsLong() / redis50.getAsLong()), micros(dkv99.getAsLong()),
                micros(redis99.getAsLong()), ratio((double)dkv99.getAsLong() / redis99.getAsLong()));
        }
        return new ReportSection(TITLE, List.of(
            "latency of one round at a time, from the request sent to the other connection's read: the message of a " +
                "subscriber, or the reply of a blocked BLPOP; an EVAL timed to its own reply (two GETs and two SETs " +
                "in one script, a transaction on dkv); redis-server " + result.redisVersion() + " does them " +
                "on its one server (its row is the same for another node and the same node); ratios dkv over " +
                "redis, lower is better",
            String.format(Locale.ROOT, "dkv: two compute node processes over one memory node, a MetaServer and " +
                "the host's driver (processes, %s), a PUBLISH to a remote subscriber answered once it was delivered",
                JoinCluster.PROVIDER)), table);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

package io.dkv.load.bench.compute;

import io.dkv.load.bench.TextTable;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.load.resp.RespSocket;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * redis-benchmark tests of a collection type at one setting, against a compute node and then redis-server, with the
 * node's calls of each that answered an error; and their table. What the collections and ordered parts share.
 */
final class RedisBenchmarkRows
{
    /** The note on reading {@link #table}. */
    static final String NOTE = "ops/s ratio: dkv's over redis-server's, higher is better; latencies are " +
        "redis-benchmark's; dkv errors: the node's calls of the test's command that answered an error (INFO " +
        "commandstats); redis-benchmark 7.0 exits at the first error reply: \"stopped\", no figures, the " +
        "error in a note";
    /** What the table says of dkv's ops/s where redis-benchmark stopped at an error reply. */
    static final String STOPPED = "stopped";
    private static final int TIMEOUT_MS = 60_000;
    /** What redis-benchmark prints before it exits at an error reply (7.0 has no option to go on). */
    private static final String ERROR_FROM_SERVER = "Error from server: ";

    /**
     * One redis-benchmark test.
     *
     * @param option  its name for {@code -t}, e.g. "lrange_100".
     * @param row     what its {@code --csv} row calls it, e.g. "LRANGE_100 (first 100 elements)".
     * @param command the command it sends, as INFO commandstats names it, e.g. "lrange".
     */
    record Test(String option, String row, String command)
    {
        /** @return the row's name up to its remark in brackets, e.g. "LRANGE_100". */
        String label()
        {
            final int remark = row.indexOf(" (");
            return remark < 0 ? row : row.substring(0, remark);
        }
    }

    /**
     * One test at one setting.
     *
     * @param dkv       the compute node's figures, null when redis-benchmark stopped at an error reply of it.
     * @param dkvCalls  the compute node's calls of its command in the run.
     * @param dkvFailed those that answered an error.
     * @param dkvError  the error reply redis-benchmark stopped at, null when it ran to its end.
     */
    record Row(Setting setting, String test, RedisBenchmarkFigures dkv, RedisBenchmarkFigures redis, long dkvCalls,
        long dkvFailed, String dkvError)
    {
    }

    private RedisBenchmarkRows()
    {
    }

    /**
     * One redis-benchmark run of {@code tests} against the compute node, then one against redis-server. redis-benchmark
     * exits at the first error reply: where the compute node answered one, its rows carry the error and no figures,
     * and redis-server's run is made all the same.
     *
     * @return a row for each of {@code tests}, in their order.
     * @throws IllegalStateException when redis-benchmark fails otherwise, or stops at an error of redis-server's.
     */
    static List<Row> run(final RedisBenchmarkTool tool, final int nodePort, final int redisPort,
        final Setting setting, final List<Test> tests, final long requests, final long keyspace, final int valueBytes)
        throws IOException, InterruptedException
    {
        final String options = tests.stream().map(Test::option).collect(Collectors.joining(","));
        final List<String> expected = tests.stream().map(Test::row).toList();
        final String node = RedisServer.HOST + ":" + nodePort;
        final Map<String, long[]> before = commandStats(node);
        Map<String, RedisBenchmarkFigures> dkv = Map.of();
        String error = null;
        try
        {
            dkv = tool.tests(RedisServer.HOST, nodePort, setting, options, expected, requests, keyspace, valueBytes);
        }
        catch (final IllegalStateException ex)
        {
            error = errorReply(ex);
        }
        final String dkvError = error;
        final Map<String, RedisBenchmarkFigures> dkvFigures = dkv;
        final Map<String, long[]> after = commandStats(node);
        final Map<String, RedisBenchmarkFigures> baseline = tool.tests(RedisServer.HOST, redisPort, setting, options,
            expected, requests, keyspace, valueBytes);
        final long[] none = new long[2];
        return tests.stream().map(test ->
        {
            final long[] from = before.getOrDefault(test.command(), none);
            final long[] to = after.getOrDefault(test.command(), none);
            return new Row(setting, test.label(), dkvFigures.get(test.row()), baseline.get(test.row()),
                to[0] - from[0], to[1] - from[1], dkvFigures.containsKey(test.row()) ? null : dkvError);
        }).toList();
    }

    /** @return the error reply redis-benchmark stopped at, as it printed it. */
    private static String errorReply(final IllegalStateException ex)
    {
        final String error = ex.getMessage() == null ? null : ex.getMessage().lines()
            .filter(line -> line.startsWith(ERROR_FROM_SERVER)).findFirst().orElse(null);
        if (error == null)
        {
            throw ex;
        }
        return error.substring(ERROR_FROM_SERVER.length()).strip();
    }

    /** @return a note for each row whose redis-benchmark run stopped at an error reply of the compute node. */
    static List<String> errors(final List<Row> rows)
    {
        return rows.stream().filter(row -> row.dkvError() != null).map(row -> String.format(Locale.ROOT,
            "%s %s against the compute node: redis-benchmark stopped at the error reply \"%s\" (it exits at the " +
                "first), after %,d of the node's calls of it, %,d of which failed", row.setting().label(), row.test(),
            row.dkvError(), row.dkvCalls(), row.dkvFailed())).toList();
    }

    /**
     * @return each command's calls and failed calls so far, by its name in lower case, from the node's INFO
     * commandstats.
     */
    static Map<String, long[]> commandStats(final String endpoint)
    {
        try (RespSocket socket = new RespSocket(endpoint, TIMEOUT_MS))
        {
            final String info = new String((byte[])socket.call(bytes("INFO"), bytes("commandstats")),
                StandardCharsets.US_ASCII);
            final Map<String, long[]> stats = new HashMap<>();
            for (final String line : info.split("\r\n"))
            {
                final int colon = line.indexOf(':');
                if (line.startsWith("cmdstat_") && colon > 0)
                {
                    stats.put(line.substring("cmdstat_".length(), colon).toLowerCase(Locale.ROOT),
                        new long[] {field(line, "calls="), field(line, "failed_calls=")});
                }
            }
            return stats;
        }
    }

    /** @return the number after {@code name} in a commandstats line ("cmdstat_get:calls=2,usec=..."), or 0. */
    private static long field(final String line, final String name)
    {
        int at = line.indexOf(name);
        while (at > 0 && line.charAt(at - 1) != ':' && line.charAt(at - 1) != ',')
        {
            at = line.indexOf(name, at + 1);
        }
        if (at < 0)
        {
            return 0;
        }
        final int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at + name.length(), end < 0 ? line.length() : end).strip());
    }

    /** @return the rows' table: ops/s of each server and their ratio, the latencies, the node's errors. */
    static TextTable table(final List<Row> rows)
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
        for (final Row row : rows)
        {
            final RedisBenchmarkFigures dkv = row.dkv();
            table.addRow(row.setting().label(), row.test(), dkv == null ? STOPPED : opsPerSecond(dkv.rps()),
                opsPerSecond(row.redis().rps()), dkv == null ? "-" : ratio(dkv.rps() / row.redis().rps()),
                dkv == null ? "-" : ThroughputPart.micros(dkv.p50Ms()), ThroughputPart.micros(row.redis().p50Ms()),
                dkv == null ? "-" : ThroughputPart.micros(dkv.p99Ms()), ThroughputPart.micros(row.redis().p99Ms()),
                String.format(Locale.ROOT, "%,d", row.dkvFailed()));
        }
        return table;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}

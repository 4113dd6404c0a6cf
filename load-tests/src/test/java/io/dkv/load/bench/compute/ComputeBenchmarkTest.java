package io.dkv.load.bench.compute;

import io.dkv.load.CommandRun;
import io.dkv.load.Tiers;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.load.bench.html.HtmlPages;
import io.dkv.load.bench.ycsb.RedisServer;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code dkv bench compute} runs both parts briefly and reports each figure beside redis-server's and its goals; no
 * figure is judged here.
 */
class ComputeBenchmarkTest
{
    @Test
    @Tag(Tiers.SOAK)
    @Timeout(300)
    void throughputRunsTheTestsAskedForOverTheProviderAskedForWithAsynchronousCommands()
    {
        assumeRedisTools("throughputRunsTheTestsAskedForOverTheProviderAskedForWithAsynchronousCommands");

        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "throughput", "--requests", "200", "--keyspace", "100",
            "--tests", "set,incr,mset", "--provider", "tcp", "--async-commands", "on");

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final List<String[]> throughput =
            ReportTables.tables(text, List.of(ThroughputPart.TITLE)).get(ThroughputPart.TITLE);
        assertEquals(3 * Setting.ALL.size(), throughput.size(), text);
        assertEquals(List.of("SET", "INCR", "MSET (10 keys)"),
            throughput.stream().map(row -> row[1]).distinct().toList(), text);
        assertTrue(text.contains("GET, SET, INCR, DEL, MSET and MSETNX asynchronous") &&
            text.contains("on the tcp provider"), text);
        assertEquals(2, bench.run("compute", "--only", "throughput", "--tests", "set,flushall"),
            "a test the bench does not know is refused");
        assertEquals(2, bench.run("compute", "--only", "scale", "--scale-nodes", "shared"),
            "a kind of scale-step node the bench does not know is refused");
        assertTrue(bench.err().contains("--scale-nodes shared (own or attached)"), bench::err);
    }

    @Test
    @Tag(Tiers.SOAK)
    @Timeout(300)
    void reportsThroughputAndJoinBesideRedisServer(@TempDir final Path dir) throws IOException
    {
        assumeRedisTools("reportsThroughputAndJoinBesideRedisServer");

        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final Path html = dir.resolve("compute.html");
        final int exit = bench.run("compute", "--only", "throughput,join", "--requests", "500", "--keyspace", "100",
                "--starts", "3", "--html", html.toString());

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final Map<String, List<String[]>> tables = ReportTables.tables(text,
            List.of(ThroughputPart.TITLE, JoinPart.TITLE, JoinPart.PHASES));
        final List<String[]> throughput = tables.get(ThroughputPart.TITLE);
        assertEquals(2 * Setting.ALL.size(), throughput.size(), text);
        for (final String[] row : throughput)
        {
            assertTrue(row[4].endsWith("x") && row[7].endsWith("x"), () -> String.join(" | ", row));
        }
        final List<String[]> join = tables.get(JoinPart.TITLE);
        // under surefire the class path holds directories, so no AOT cache: four rows
        assertEquals(List.of(JoinPart.JVM, JoinPart.REDIS, JoinPart.COMPUTE, JoinPart.COMPUTE_ATTACHED),
            join.stream().map(row -> row[0]).toList(), text);
        for (final String[] row : join)
        {
            assertEquals("3", row[2], () -> String.join(" | ", row));
            assertTrue(row[6].endsWith("x") && row[7].endsWith("x"), () -> String.join(" | ", row));
        }
        assertEquals(JoinPart.PHASE_NAMES.size(), tables.get(JoinPart.PHASES).size(), text);
        assertTrue(text.contains("AOT cache: not tried"), text);
        final List<String> goals = text.lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(4, goals.size(), text);
        assertTrue(goals.stream().allMatch(line -> line.contains(": MET (") || line.contains(": MISSED (")), text);
        // SET and GET ops/s, their latencies, the starts
        HtmlPages.parsePage(Files.readString(html), ComputeBenchmark.TITLE, 4, tables.size());
    }

    @Test
    @Tag(Tiers.SOAK)
    @Timeout(300)
    void reportsScaleOutStepsPhaseByPhaseWithTheirGoals()
    {
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "scale", "--scale-phase-ms", "1500", "--scale-rate", "200",
                "--scale-clients", "2", "--scale-steps", "2");

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final List<String[]> phases = ReportTables.tables(text, List.of(ScaleStepPart.TITLE)).get(ScaleStepPart.TITLE);
        assertEquals(3, phases.size(), text);
        assertEquals("1.00x", phases.getFirst()[8], text);
        // the second step's clients ran too: a step whose clients stopped at once has no ratio
        assertTrue(Pattern.compile("2 steps, each in a cluster of its own; step p99 / steady p99 of each, in the " +
            "order run: [0-9.]+x, [0-9.]+x;").matcher(text).find(), text);
        final List<String> goals = text.lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(2, goals.size(), text);
        assertTrue(goals.stream().allMatch(line -> line.contains(": MET (") || line.contains(": MISSED (")), text);
    }

    @Test
    @Timeout(300)
    void reportsMsetAndWatchedTransfersBesideRedisServerWithBalancesChecked()
    {
        assumeTrue(RedisServer.find().isPresent() && RedisBenchmarkTool.find().isPresent(),
            "redis-server or redis-benchmark is not installed");
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "multi", "--multi-requests", "200", "--keyspace", "100",
                "--transfers", "200", "--accounts", "50");

        // a transfer seen in part fails the run: the balances are summed after each store's transfers
        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final Map<String, List<String[]>> tables =
            ReportTables.tables(text, List.of(MultiPart.MSET_TITLE, MultiPart.WATCH_TITLE));
        assertEquals(MultiPart.MSET_SETTINGS.size(), tables.get(MultiPart.MSET_TITLE).size(), text);
        for (final String[] row : tables.get(MultiPart.MSET_TITLE))
        {
            assertTrue(row[3].endsWith("x"), () -> String.join(" | ", row));
        }
        final List<String[]> transfers = tables.get(MultiPart.WATCH_TITLE);
        assertEquals(List.of("50", "50", "16"), transfers.stream().map(row -> row[1]).toList(), text);
        for (final String[] row : transfers)
        {
            assertTrue(row[4].endsWith("x"), () -> String.join(" | ", row));
        }
        final List<String> goals = text.lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(1, goals.size(), text);
        assertTrue(goals.getFirst().contains("MSET (10 keys)") &&
            (goals.getFirst().contains(": MET (") || goals.getFirst().contains(": MISSED (")), text);
    }

    @Test
    @Tag(Tiers.SOAK)
    @Timeout(300)
    void reportsSortedSetsAndListsBesideRedisServerLargeAgainstSmall()
    {
        assumeRedisTools("reportsSortedSetsAndListsBesideRedisServerLargeAgainstSmall");
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "ordered", "--requests", "500", "--keyspace", "100",
                "--ordered-members", "2000", "--ordered-operations", "200");

        // a reply other than the one expected (a member or index not found, a size changed) fails the run
        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final Map<String, List<String[]>> tables = ReportTables.tables(text,
            List.of(OrderedPart.TITLE, OrderedPart.SIZE_TITLE, OrderedPart.LOAD_TITLE));
        final List<String[]> benchmark = tables.get(OrderedPart.TITLE);
        assertEquals(Setting.ALL.size() * OrderedPart.TESTS.size(), benchmark.size(), text);
        assertEquals(OrderedPart.TESTS.stream().map(RedisBenchmarkRows.Test::label).toList(),
            benchmark.subList(0, OrderedPart.TESTS.size()).stream().map(row -> row[1]).toList(), text);
        // a run redis-benchmark stopped at an error reply of the node's (it exits at the first) has no figures
        for (final String[] row : benchmark)
        {
            assertTrue(row[4].endsWith("x") && row[9].matches("[0-9,]+") ||
                row[2].equals(RedisBenchmarkRows.STOPPED), () -> String.join(" | ", row));
        }
        final List<String[]> sizes = tables.get(OrderedPart.SIZE_TITLE);
        assertEquals(2 * OrderedPart.OPERATIONS.size(), sizes.size(), text);
        for (int r = 0; r < sizes.size(); r++)
        {
            final String[] row = sizes.get(r);
            assertEquals(OrderedPart.OPERATIONS.get(r / 2), row[0], text);
            assertEquals(r % 2 == 0 ? "10" : "2,000", row[1], text);
            assertTrue(row[6].endsWith("x"), () -> String.join(" | ", row));
            assertTrue(r % 2 == 0 ? row[7].equals("-") && row[8].equals("-") :
                row[7].endsWith("x") && row[8].endsWith("x"), () -> String.join(" | ", row));
        }
        final List<String[]> loads = tables.get(OrderedPart.LOAD_TITLE);
        assertEquals(List.of("dkv", "dkv", "dkv", "dkv", "redis", "redis", "redis", "redis"),
            loads.stream().map(row -> row[0]).toList(), text);
        assertEquals(List.of("10", "10", "2,000", "2,000"), loads.subList(0, 4).stream().map(row -> row[2]).toList(),
            text);
        assertTrue(text.contains("chunks refused for a full heap: 0"), text);
    }

    /** Skips the test, saying why, where redis-server or redis-benchmark is not installed. */
    @Test
    @Timeout(300)
    void reportsRequestsAtTheMemoryLimitBesideRedisServerWithItsGoal()
    {
        assumeRedisTools("reportsRequestsAtTheMemoryLimitBesideRedisServerWithItsGoal");

        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "full", "--full-requests", "20");

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final List<String[]> rows = ReportTables.tables(text, List.of(FullPart.TITLE)).get(FullPart.TITLE);
        assertEquals(List.of("SET, refused (-OOM)", "GET of a value of 10 KB", "DEL of one key"),
            rows.stream().map(row -> row[0]).toList(), text);
        assertTrue(text.contains("at full, writes answer OOM in <= 1 ms p99: "), text);
        assertEquals(2, bench.run("compute", "--only", "full", "--full-requests", "0"),
            "no requests to time is refused");
    }

    /** Skips the test, saying why, where redis-server or redis-benchmark is not installed. */
    @Test
    @Timeout(300)
    void reportsASubscriberDroppedAndPingsBesideBigRepliesBesideRedisServerWithItsGoals()
    {
        assumeRedisTools("reportsASubscriberDroppedAndPingsBesideBigRepliesBesideRedisServerWithItsGoals");

        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("compute", "--only", "clients", "--clients-mgets", "2");

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final List<String[]> rows = ReportTables.tables(text, List.of(ClientsPart.TITLE)).get(ClientsPart.TITLE);
        assertEquals(List.of("subscriber dropped after (ms)", "messages published until then",
            "PING beside the subscriber p50 (ms)", "PING beside the subscriber p99 (ms)",
            "MGET of 20,000 keys p50 (ms)", "PING beside the MGETs p50 (ms)", "PING beside the MGETs p99 (ms)"),
            rows.stream().map(row -> row[0]).toList(), text);
        assertTrue(text.contains("a subscriber that never reads is dropped within 5 s: "), text);
        assertTrue(text.contains("PING p99 <= 10 ms beside it and beside 20,000-key MGETs: "), text);
        assertEquals(2, bench.run("compute", "--only", "clients", "--clients-mgets", "0"), "no MGETs is refused");
    }

    private static void assumeRedisTools(final String test)
    {
        final boolean redis = RedisServer.find().isPresent() && RedisBenchmarkTool.find().isPresent();
        if (!redis)
        {
            System.out.println("ComputeBenchmarkTest." + test + " skipped: " + RedisServer.BINARY + " or " +
                RedisBenchmarkTool.BINARY + " is not installed (" + RedisServer.INSTALL_HINT + ", " +
                RedisBenchmarkTool.INSTALL_HINT + ")");
        }
        assumeTrue(redis, "redis-server or redis-benchmark is not installed");
    }
}

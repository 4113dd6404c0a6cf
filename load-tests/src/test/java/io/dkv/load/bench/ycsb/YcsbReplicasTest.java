package io.dkv.load.bench.ycsb;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static io.dkv.load.bench.ycsb.YcsbBenchmarkTest.args;
import static io.dkv.load.bench.ycsb.YcsbBenchmarkTest.keys;
import static io.dkv.load.bench.ycsb.YcsbBenchmarkTest.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench ycsb --replicas}: every replica count runs every phase on a store of its own,
 * the replication section puts each beside the fewest copies with the ratio, the goals of two
 * copies against one are judged, and counts a client cannot keep are refused naming the value.
 */
class YcsbReplicasTest
{
    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    @Timeout(90)
    void runsEachReplicaCountAndReportsItBesideOneCopy(@TempDir final Path dir) throws IOException
    {
        final Path markdown = dir.resolve("ycsb.md");
        final int exitCode = bench.run(args("--replicas", "2,1", "--workload", "a,c", "--threads", "1", "--redis",
            "off", "--markdown", markdown.toString()));

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final Map<String, List<String[]>> tables = ReportTables.tables(bench.out(),
            List.of(YcsbReport.THROUGHPUT, ReplicationCost.TITLE));
        // the tables beside Redis are of the baseline alone
        assertEquals(List.of("load 1", "YCSB-A 1", "YCSB-C 1"), keys(tables.get(YcsbReport.THROUGHPUT)), bench::out);

        final List<String[]> rows = tables.get(ReplicationCost.TITLE);
        // the load is not compared: the stores load one after the other
        assertEquals(List.of("YCSB-A 1 1", "YCSB-A 1 2", "YCSB-C 1 1", "YCSB-C 1 2"),
            rows.stream().map(row -> row[0] + " " + row[1] + " " + row[2]).toList(), bench::out);
        for (int i = 0; i < rows.size(); i += 2)
        {
            final String[] one = rows.get(i);
            final String[] two = rows.get(i + 1);
            assertEquals(List.of("1.00x", "1.00x", "1.00x"), List.of(one[4], one[6], one[8]),
                () -> "the baseline against itself: " + Arrays.toString(one));
            assertEquals(number(two[3]) / number(one[3]), ratio(two[4]), 0.01 + 0.005 * ratio(two[4]),
                () -> "ops/s at r=2 over r=1: " + Arrays.toString(two) + " against " + Arrays.toString(one));
            assertTrue(number(two[5]) > 0 && number(two[7]) >= number(two[5]) && ratio(two[6]) > 0 &&
                ratio(two[8]) > 0, () -> "latency at r=2: " + Arrays.toString(two));
            // a replicated write that did not answer OK is a failure of the store, not of the benchmark
            assertEquals(List.of("0", "0"), List.of(one[9], two[9]), bench::out);
        }

        final List<String> goals = bench.out().lines()
            .filter(line -> line.startsWith("goal ") && line.contains("copies of each key")).toList();
        assertEquals(2, goals.size(), bench::out);
        assertTrue(goals.get(0).matches("goal YCSB-C: dkv ops/s with 2 copies of each key >= 0\\.95x with 1, " +
            "1 thread: (MET|MISSED) \\(measured \\d+\\.\\d+x: r=2 [\\d,]+, r=1 [\\d,]+ ops/s\\)"), goals.get(0));
        assertTrue(goals.get(1).matches("goal YCSB-A: dkv ops/s with 2 copies of each key >= 0\\.60x with 1, " +
            "1 thread: (MET|MISSED) \\(measured .*\\)"), goals.get(1));
        assertTrue(bench.out().contains("replicas: 1,2 copies of each key"), bench::out);
        assertTrue(bench.out().contains("2 memory nodes, each"), bench::out);
        assertTrue(bench.err().contains("\rdkv r=2 YCSB-A, 1 thread [") || bench.err().contains("\rdkv r=2 load ["),
            bench::err);
        assertTrue(bench.out().contains("2 memory nodes, all up at once"), bench::out);

        final String markdownText = Files.readString(markdown);
        assertTrue(markdownText.contains("### " + ReplicationCost.TITLE), markdownText);
        assertTrue(markdownText.contains("| YCSB-A | 1 | 2 |"), markdownText);
    }

    @Test
    void withoutOneAndTwoTheGoalsOfTwoCopiesAreNotMeasured()
    {
        final List<ReplicaPass> passes = List.of(new ReplicaPass(1, List.of()), new ReplicaPass(3, List.of()));

        assertEquals(List.of(
            "YCSB-C: dkv ops/s with 2 copies of each key >= 0.95x with 1: NOT MEASURED (--replicas did not include " +
                "1 and 2)",
            "YCSB-A: dkv ops/s with 2 copies of each key >= 0.60x with 1: NOT MEASURED (--replicas did not include " +
                "1 and 2)"),
            ReplicationCost.goals(passes));
    }

    @Test
    void refusesReplicaCountsAClientCannotKeepNamingTheValue()
    {
        assertEquals(2, bench.run("ycsb", "--replicas", "0"));
        assertTrue(bench.err().contains("--replicas 0 is outside 1..7"), bench::err);
        assertEquals(2, bench.run("ycsb", "--replicas", "1,8"));
        assertTrue(bench.err().contains("--replicas 8 is outside 1..7"), bench::err);
        assertEquals(2, bench.run("ycsb", "--replicas", "1,x"));
        assertTrue(bench.err().contains("--replicas") && bench.err().contains("'x'"), bench::err);
    }

    @Test
    void aStoreRefusesMoreReplicasThanMemoryNodes()
    {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> InProcessStore.start(InProcessStore.sizedFor(10, 1 << 20, 1), 1, 1, 2));

        assertTrue(refused.getMessage().startsWith("2 replicas on 1 memory nodes"), refused.getMessage());
    }

    private static double ratio(final String cell)
    {
        assertTrue(cell.matches("\\d+\\.\\d{2}x"), cell);
        return Double.parseDouble(cell.substring(0, cell.length() - 1));
    }
}

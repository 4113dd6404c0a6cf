package io.dkv.load.bench.txn;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench txn} end to end with tiny counts: a table per setting with a row for each single-key operation
 * and each transaction, the PUT's ratio 1.00x; bad options are refused naming the value.
 */
class TxnBenchmarkTest
{
    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    @Timeout(180)
    void reportsEveryOperationBesideThePutOfItsSetting()
    {
        final int exitCode = bench.run("txn", "--keys", "64", "--operations", "40", "--threads", "2",
            "--replicas", "2", "--smallbank-customers", "50");

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final List<String> titles = List.of("r = 2, 2 threads, uniform keys", "r = 2, 2 threads, Zipfian keys");
        final Map<String, List<String[]>> tables = ReportTables.tables(bench.out(), titles);
        for (final String title : titles)
        {
            final List<String[]> rows = tables.get(title);
            assertEquals(Arrays.stream(TxnBenchmark.Kind.values()).map(kind -> kind.label).toList(),
                rows.stream().map(row -> row[0]).toList(), bench::out);
            assertEquals("1.00x", rows.get(0)[4], bench::out);
        }
        final List<String[]> bank = ReportTables.tables(bench.out(), List.of("SmallBank")).get("SmallBank");
        assertEquals(1, bank.size(), bench::out);
        assertEquals("2", bank.get(0)[0], "copies");
    }

    @Test
    @Timeout(180)
    void runsOverTcpWhereARequestCostsARoundTrip()
    {
        final int exitCode = bench.run("txn", "--provider", "tcp", "--keys", "16", "--operations", "10",
            "--threads", "1", "--replicas", "1", "--smallbank-customers", "0");

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        assertTrue(bench.out().contains("3 memory nodes (tcp)"), bench::out);
        final String title = "r = 1, 1 thread, uniform keys";
        final List<String[]> rows = ReportTables.tables(bench.out(), List.of(title)).get(title);
        assertEquals(TxnBenchmark.Kind.values().length, rows.size(), bench::out);
    }

    @Test
    void refusesAnUnknownProvider()
    {
        final int exitCode = bench.run("txn", "--provider", "rxe");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--provider rxe: shm or tcp"), bench::err);
    }

    @Test
    void refusesTooFewKeys()
    {
        final int exitCode = bench.run("txn", "--keys", "4");

        assertTrue(exitCode != 0, bench::out);
        assertTrue(bench.err().contains("--keys 4 (8 or more)"), bench::err);
    }
}

package io.dkv.load.bench.check;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench check} times both checkers on valid histories and reports each beside reading it.
 */
class CheckBenchmarkTest
{
    @Test
    @Timeout(120)
    void timesBothCheckersOnValidHistoriesAndStatesTheGoal()
    {
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("check", "--operations", "3000", "--keys", "50", "--runs", "1");

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final Map<String, List<String[]>> tables = ReportTables.tables(bench.out(), List.of(CheckBenchmark.TIMES));
        final List<String[]> rows = tables.get(CheckBenchmark.TIMES);
        assertEquals(2, rows.size(), bench::out);
        for (final String[] row : rows)
        {
            assertEquals("VALID", row[3], () -> String.join(" | ", row));
            assertTrue(Double.parseDouble(row[4].replace(",", "")) >= 0 && row[8].endsWith("x"),
                () -> String.join(" | ", row));
        }
        assertEquals(2, bench.out().lines().filter(line -> line.startsWith("goal ")).count(), bench::out);
    }
}

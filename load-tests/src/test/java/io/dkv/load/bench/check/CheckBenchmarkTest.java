package io.dkv.load.bench.check;

import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
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
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int exit = DkvCommandLine.of(new BenchCommand())
            .setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
            .execute("check", "--operations", "3000", "--keys", "50", "--runs", "1");

        assertEquals(0, exit, () -> out + "\n" + err);
        final Map<String, List<String[]>> tables = ReportTables.tables(out.toString(), List.of(CheckBenchmark.TIMES));
        final List<String[]> rows = tables.get(CheckBenchmark.TIMES);
        assertEquals(2, rows.size(), out::toString);
        for (final String[] row : rows)
        {
            assertEquals("VALID", row[3], () -> String.join(" | ", row));
            assertTrue(Double.parseDouble(row[4].replace(",", "")) >= 0 && row[8].endsWith("x"),
                () -> String.join(" | ", row));
        }
        assertEquals(2, out.toString().lines().filter(line -> line.startsWith("goal ")).count(), out::toString);
    }
}

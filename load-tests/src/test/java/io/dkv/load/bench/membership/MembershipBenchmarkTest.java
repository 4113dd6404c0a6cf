package io.dkv.load.bench.membership;

import io.dkv.load.CommandRun;
import io.dkv.load.Tiers;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench membership} at a few MiB: a memory node joins and is drained under the steady load, keys move
 * both ways, every key reads back right, and the report has its rows; no figure is judged here.
 */
class MembershipBenchmarkTest
{
    @Test
    @Tag(Tiers.SOAK)
    @Timeout(300)
    void aNodeJoinsAndIsDrainedAndTheReportSaysWhatMovedAndWhatClientsSaw(@TempDir final Path dir) throws Exception
    {
        final Path markdown = dir.resolve("membership.md");
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("membership", "--bytes", "2m", "--value-size", "512", "--window-ms", "1000",
            "--timeout-ms", "1000", "--rate", "400", "--markdown", markdown.toString());

        assertEquals(0, exit, () -> bench.out() + "\n" + bench.err());
        final String text = bench.out();
        final Map<String, List<String[]>> tables = ReportTables.tables(text,
            List.of(MembershipReport.CLIENTS_TITLE, MembershipReport.MOVES_TITLE));
        final List<String[]> windows = tables.get(MembershipReport.CLIENTS_TITLE);
        assertEquals(List.of(MembershipRun.BEFORE, MembershipRun.DURING_JOIN, MembershipRun.DURING_DRAIN),
            windows.stream().map(row -> row[0]).toList(), text);
        assertEquals("1.00x", windows.getFirst()[6], text);
        for (final String[] row : windows)
        {
            assertTrue(number(row[2]) + number(row[3]) > 0, () -> "operations in " + String.join(" | ", row));
            assertTrue(row[11].endsWith("x"), () -> String.join(" | ", row));
        }
        final List<String[]> moves = tables.get(MembershipReport.MOVES_TITLE);
        assertEquals(3, moves.size(), text);
        assertEquals(MembershipReport.LOAD_ROW, moves.get(0)[0], text);
        assertEquals(4096, number(moves.get(0)[1]), text);
        assertTrue(moves.get(1)[0].startsWith(MembershipReport.JOIN_ROW + " of memory node "), text);
        assertTrue(moves.get(2)[0].startsWith(MembershipReport.DRAIN_ROW + " of memory node "), text);
        // at one copy about a third of the keys move onto the new node, the join's fill copying them there, and the
        // drain puts every one back where it was
        final long joined = number(moves.get(1)[1]);
        assertTrue(joined > 0 && joined < 4096, text);
        assertTrue(number(moves.get(1)[3]) > 0, text);
        assertEquals(joined, number(moves.get(2)[1]), text);
        assertTrue(text.contains("per GiB EXTRAPOLATED from"), text);
        assertTrue(text.contains("goal every key holds a value of its own after the changes: MET (0 of 4,096"), text);
        assertTrue(text.matches("(?s).*goal client p99 during each change at most 10x the window before: " +
            "(MET|MISSED) \\(during the join [0-9.,]+x, during the drain [0-9.,]+x\\).*"), text);
        final String written = Files.readString(markdown);
        assertTrue(written.startsWith("## " + MembershipBenchmark.TITLE), written);
        assertTrue(written.contains("### " + MembershipReport.MOVES_TITLE), written);
    }

    @Test
    void refusesReplicasBeyondTheMemoryNodesNamingTheValue()
    {
        final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));
        final int exit = bench.run("membership", "--replicas", "3", "--memory-nodes", "2");

        assertEquals(2, exit, bench.err());
        assertTrue(bench.err().contains("--replicas 3 (1 to --memory-nodes, 2)"), bench.err());
    }

    private static long number(final String cell)
    {
        return Long.parseLong(cell.replace(",", ""));
    }
}

package io.dkv.load.bench.verbs;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.raas.command.DkvCommandLine;
import io.dkv.verbs.Verbs;
import io.dkv.verbs.VerbsContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code dkv bench verbs} end to end with tiny counts: both providers run, every row and goal is
 * reported on stdout and in the Markdown file, and bad options are refused.
 */
class VerbsBenchmarkTest
{
    private static final List<String> EXPECTED_ROWS = List.of(
        "shm READ 8 B",
        "shm READ 64 B",
        "shm WRITE 8 B",
        "shm WRITE 64 B",
        "shm CAS 8 B",
        "tcp READ 8 B",
        "tcp READ 64 B",
        "tcp WRITE 8 B",
        "tcp WRITE 64 B",
        "tcp CAS 8 B");
    private static final int COLUMNS = 13;

    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    @Test
    @Timeout(60)
    void measuresEveryOperationOnBothProvidersAndReportsItInBothFormats(@TempDir final Path dir) throws IOException
    {
        final Path markdown = dir.resolve("docs").resolve("results.md");
        final int exitCode = bench.run("verbs", "--iterations", "300", "--warmup", "10", "--region-mib", "4",
            "--markdown", markdown.toString());

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final List<String[]> rows = tableRows(bench.out().lines().toList());
        assertEquals(EXPECTED_ROWS, rows.stream().map(row -> row[0] + " " + row[1] + " " + row[2]).toList(),
            bench::out);
        for (final String[] row : rows)
        {
            final String floorKind = row[3].replaceAll(" \\d.*", "");
            assertEquals(row[0].equals("shm") ? "local memory" : "ping-pong", floorKind, Arrays.toString(row));
            assertTrue(number(row[4]) > 0 && number(row[7]) >= number(row[4]),
                () -> "verbs p50 <= p99: " + Arrays.toString(row));
            assertTrue(number(row[8]) >= number(row[5]), () -> "floor p50 <= p99: " + Arrays.toString(row));
            assertTrue(number(row[10]) > 0 && number(row[11]) > 0, () -> "throughputs: " + Arrays.toString(row));
            for (final int ratio : new int[]{6, 9, 12})
            {
                assertTrue(row[ratio].matches("\\d+\\.\\d\\dx"),
                    () -> "ratio column " + ratio + ": " + Arrays.toString(row));
            }
        }
        assertGoals(bench.out(), "goal ");
        assertTrue(bench.out().contains("machine: " + Runtime.getRuntime().availableProcessors() + " cores"),
            bench::out);

        final String markdownText = Files.readString(markdown);
        for (final String row : EXPECTED_ROWS)
        {
            final String[] cells = row.split(" ", 3);
            assertTrue(markdownText.contains("| " + String.join(" | ", cells) + " |"),
                () -> row + " in\n" + markdownText);
        }
        assertEquals(EXPECTED_ROWS.size() + 2, markdownText.lines().filter(line -> line.startsWith("|")).count(),
            markdownText);
        assertGoals(markdownText, "- ");
    }

    @Test
    void refusesAnUnknownProvider()
    {
        assertEquals(2, bench.run("verbs", "--provider", "rdma"));
        assertTrue(bench.err().contains("rdma"), bench::err);
    }

    @Test
    void refusesTheRnicProviderWhereItCannotRunSayingWhy()
    {
        final String reason = Verbs.provider("verbs").unavailableReason(new VerbsContext());
        assumeTrue(reason != null, "an RNIC is usable here: bench verbs --provider verbs measures it");

        assertEquals(1, bench.run("verbs", "--provider", "verbs", "--iterations", "10", "--warmup", "1"));
        assertTrue(bench.err().contains("verbs provider 'verbs' is not available: " + reason), bench::err);
    }

    @Test
    void refusesASizeLargerThanItSupports()
    {
        assertEquals(2, bench.run("verbs", "--sizes", "8," + (VerbsBenchmark.MAX_SIZE + 1)));
        assertTrue(bench.err().contains("--sizes " + (VerbsBenchmark.MAX_SIZE + 1)), bench::err);
    }

    private static void assertGoals(final String text, final String prefix)
    {
        for (final String goal : List.of("shm READ p50 <= 3x floor, 8 B: ", "shm READ p50 <= 3x floor, 64 B: ",
            "tcp READ p50 <= 1.5x ping-pong, 8 B: ", "tcp READ p50 <= 1.5x ping-pong, 64 B: "))
        {
            assertTrue(text.lines().anyMatch(line -> line.startsWith(prefix + goal) &&
                line.matches(".*: (MET|MISSED) \\(measured \\d+\\.\\d\\dx\\)")), () -> goal + " in\n" + text);
        }
    }

    /**
     * @return the cells of each line of the text table below its header: columns are two or more spaces apart.
     */
    private static List<String[]> tableRows(final List<String> lines)
    {
        final List<String[]> rows = new ArrayList<>();
        boolean inTable = false;
        for (final String line : lines)
        {
            if (line.startsWith("provider "))
            {
                inTable = true;
            }
            else if (inTable && line.isBlank())
            {
                break;
            }
            else if (inTable)
            {
                final String[] cells = line.trim().split(" {2,}");
                assertEquals(COLUMNS, cells.length, () -> "cells of " + line);
                rows.add(cells);
            }
        }
        return rows;
    }

    private static double number(final String cell)
    {
        return Double.parseDouble(cell.replace(",", ""));
    }
}

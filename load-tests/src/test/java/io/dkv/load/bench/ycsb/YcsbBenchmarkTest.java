package io.dkv.load.bench.ycsb;

import io.dkv.load.CommandRun;
import io.dkv.load.bench.BenchCommand;
import io.dkv.load.bench.ReportTables;
import io.dkv.load.bench.html.HtmlPages;
import io.dkv.raas.command.DkvCommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code dkv bench ycsb} end to end with tiny counts and dkv alone: every workload asked for runs
 * at every thread count, the tables hold their rows in the text, in the Markdown file and on the
 * page beside its plots, the goals say what was not measured, and bad options are refused.
 */
class YcsbBenchmarkTest
{
    static final String[] TINY = {"--records", "300", "--operations", "400", "--warmup", "100", "--floor-reads", "200"};

    private final CommandRun bench = new CommandRun(() -> DkvCommandLine.of(new BenchCommand()));

    static String[] args(final String... extra)
    {
        final List<String> all = new ArrayList<>(List.of("ycsb"));
        all.addAll(Arrays.asList(TINY));
        all.addAll(Arrays.asList(extra));
        return all.toArray(String[]::new);
    }

    @Test
    @Timeout(60)
    void runsEveryWorkloadAtEveryThreadCountAndReportsItInBothFormats(@TempDir final Path dir) throws IOException
    {
        final Path markdown = dir.resolve("ycsb.md");
        final Path html = dir.resolve("pages").resolve("ycsb.html");
        final int exitCode = bench.run(args("--workload", "a,c", "--workload", "d,e,f,b", "--threads", "1,2", "--redis",
            "off", "--markdown", markdown.toString(), "--html", html.toString()));

        assertEquals(0, exitCode, () -> "stdout:\n" + bench.out() + "\nstderr:\n" + bench.err());
        final Map<String, List<String[]>> tables = tables(bench.out());
        final List<String> runs =
            List.of("load 2", "YCSB-A 1", "YCSB-A 2", "YCSB-C 1", "YCSB-C 2", "YCSB-D 1", "YCSB-D 2",
            "YCSB-E 1", "YCSB-E 2", "YCSB-F 1", "YCSB-F 2", "YCSB-B 1", "YCSB-B 2");
        assertEquals(runs, keys(tables.get(YcsbReport.THROUGHPUT)), bench::out);
        assertEquals(runs, keys(tables.get(YcsbReport.LATENCY)), bench::out);
        for (final String[] row : tables.get(YcsbReport.THROUGHPUT))
        {
            assertEquals("load".equals(row[0]) ? "300" : "400", row[2], () -> Arrays.toString(row));
            assertTrue(number(row[3]) > 0 && number(row[6]) > 0, () -> "dkv throughput: " + Arrays.toString(row));
            assertEquals(List.of("-", "-", "-"), List.of(row[4], row[5], row[7]),
                () -> "Redis off: " + Arrays.toString(row));
        }
        for (final String[] row : tables.get(YcsbReport.LATENCY))
        {
            assertTrue(number(row[2]) > 0 && number(row[5]) >= number(row[2]),
                () -> "dkv p50 <= p99: " + Arrays.toString(row));
            assertEquals("0", row[8], () -> "dkv failures: " + Arrays.toString(row));
        }
        assertEquals(runs, keys(tables.get(YcsbReport.CPU)), bench::out);
        for (final String[] row : tables.get(YcsbReport.CPU))
        {
            // the process's CPU time comes in clock ticks (10 ms): a run this short may show none
            assertTrue(number(row[2]) > 0 && number(row[3]) >= 0 && number(row[4]) >= 0 && number(row[8]) > 0,
                () -> "dkv CPU time: " + Arrays.toString(row));
            assertEquals(List.of("-", "-", "-", "-"), List.of(row[5], row[6], row[7], row[9]),
                () -> "Redis off: " + Arrays.toString(row));
        }
        final List<String[]> floors = tables.get(YcsbReport.FLOOR);
        assertEquals(List.of("through the driver", "raw verbs"), floors.stream().map(row -> row[5]).toList());
        for (final String[] floor : floors)
        {
            assertEquals("YCSB-C, 1 thread", floor[0], () -> Arrays.toString(floor));
            assertTrue(number(floor[1]) > 0 && number(floor[2]) > 0 && floor[4].matches("\\d+\\.\\d+x"),
                () -> Arrays.toString(floor));
        }

        final List<String> goals = bench.out().lines().filter(line -> line.startsWith("goal ")).toList();
        assertEquals(List.of(
            "goal YCSB-C: dkv ops/s per client thread >= 10x Redis's: NOT MEASURED (Redis was off)",
            "goal YCSB-A: dkv ops/s per client thread >= 3x Redis's: NOT MEASURED (Redis was off)"),
            goals.subList(0, 2));
        assertTrue(goals.get(2).matches("goal dkv GET p50 <= 3x the floor of its three memory accesses: (MET|MISSED) " +
            "\\(measured .*\\)"), goals.get(2));
        assertTrue(goals.get(3).matches("goal dkv GET p50 <= 1.3x the floor of three raw verbs READs: (MET|MISSED) " +
            "\\(measured .*\\)"), goals.get(3));
        assertTrue(bench.out().contains("Redis: off (--redis off)"), bench::out);

        final String markdownText = Files.readString(markdown);
        for (final String title : tables.keySet())
        {
            assertTrue(markdownText.contains("### " + title), () -> title + " in\n" + markdownText);
        }
        // every table adds a header and a rule line to its rows
        assertEquals(3 * (runs.size() + 2) + 2 + 2, markdownText.lines().filter(line -> line.startsWith("|")).count(),
            markdownText);

        // per workload its throughput bars and its latency curves, then the GET beside its floor
        final Document page = HtmlPages.parsePage(Files.readString(html), YcsbReport.TITLE, 2 * 5 + 1, 4);
        final List<String> captions =
            HtmlPages.elements(page, "figcaption").stream().map(Element::getTextContent).toList();
        assertEquals("YCSB-A: throughput by client threads", captions.getFirst(), captions::toString);
        assertTrue(captions.getLast().startsWith("GET beside its floor: YCSB-C reads, 1 thread"), captions::toString);
        assertEquals(3 * (runs.size() + 1) + 3, HtmlPages.elements(page, "tr").size());
    }

    @Test
    @Timeout(30)
    void runsWorkloadCByDefaultAndShowsProgress()
    {
        assertEquals(0, bench.run(args("--threads", "1", "--redis", "off")), bench::err);

        assertEquals(List.of("load 1", "YCSB-C 1"), keys(tables(bench.out()).get(YcsbReport.THROUGHPUT)),
            bench::out);
        assertTrue(bench.out().contains("goal YCSB-A: dkv ops/s per client thread >= 3x Redis's: NOT MEASURED " +
            "(workload a was not selected)"), bench::out);
        // one replica count, the default: no replication section and no goals of it
        assertFalse(bench.out().contains(ReplicationCost.TITLE), bench::out);
        assertFalse(bench.out().contains("copies of each key"), bench::out);
        assertTrue(bench.err().contains("\rdkv YCSB-C, 1 thread [") || bench.err().contains("\rdkv load ["),
            bench::err);
    }

    @Test
    void refusesAnUnknownWorkloadAndCountsOutOfRange()
    {
        assertEquals(2, bench.run("ycsb", "--workload", "g"));
        assertTrue(bench.err().contains("g"), bench::err);
        assertEquals(2, bench.run("ycsb", "--threads", "0"));
        assertTrue(bench.err().contains("--threads 0 is outside 1..64"), bench::err);
        assertEquals(2, bench.run("ycsb", "--field-count", "1000", "--field-length", "1000"));
        assertTrue(bench.err().contains("--field-count 1000 x --field-length 1000"), bench::err);
    }

    static List<String> keys(final List<String[]> rows)
    {
        assertTrue(rows != null && !rows.isEmpty(), "a table with rows");
        return rows.stream().map(row -> row[0] + " " + row[1]).toList();
    }

    static Map<String, List<String[]>> tables(final String text)
    {
        return ReportTables.tables(text,
            List.of(YcsbReport.THROUGHPUT, YcsbReport.LATENCY, YcsbReport.CPU, YcsbReport.FLOOR));
    }

    static double number(final String cell)
    {
        return Double.parseDouble(cell.replace(",", ""));
    }
}

package io.dkv.load.bench.compute;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What redis-benchmark's {@code --csv} output says of one test (SET, GET): requests per second and, where its version
 * prints them, the p50 and p99 latencies.
 *
 * @param test what redis-benchmark calls it.
 * @param rps  requests per second.
 * @param p50Ms median latency in milliseconds, NaN when not printed.
 * @param p99Ms 99th percentile latency in milliseconds, NaN when not printed.
 */
record RedisBenchmarkFigures(String test, double rps, double p50Ms, double p99Ms)
{
    /**
     * @param csv redis-benchmark's output with {@code --csv}: a header row naming the columns (7.x), then a row per
     *            test; older versions print no header and only {@code "test","rps"}.
     * @return the figures of each test, by its name.
     * @throws IllegalArgumentException when a row cannot be read, with the output.
     */
    static Map<String, RedisBenchmarkFigures> parse(final String csv)
    {
        final List<String> lines = csv.lines().map(String::strip).filter(line -> line.startsWith("\"")).toList();
        List<String> header = List.of("test", "rps");
        final Map<String, RedisBenchmarkFigures> figures = new LinkedHashMap<>();
        for (final String line : lines)
        {
            final List<String> cells = cells(line);
            if ("test".equals(cells.get(0)))
            {
                header = cells;
                continue;
            }
            try
            {
                figures.put(cells.get(0), new RedisBenchmarkFigures(cells.get(0), number(header, cells, "rps"),
                    number(header, cells, "p50_latency_ms"), number(header, cells, "p99_latency_ms")));
            }
            catch (final RuntimeException ex)
            {
                throw new IllegalArgumentException("cannot read redis-benchmark's row " + line + " under " + header +
                    " (" + ex.getMessage() + ") in its output:\n" + csv, ex);
            }
        }
        return figures;
    }

    private static double number(final List<String> header, final List<String> cells, final String column)
    {
        final int index = header.indexOf(column);
        if (index < 0)
        {
            if ("rps".equals(column))
            {
                throw new IllegalArgumentException("no rps column");
            }
            return Double.NaN;
        }
        return Double.parseDouble(cells.get(index));
    }

    private static List<String> cells(final String line)
    {
        return Arrays.stream(line.split(",")).map(cell -> cell.strip().replace("\"", "")).toList();
    }
}

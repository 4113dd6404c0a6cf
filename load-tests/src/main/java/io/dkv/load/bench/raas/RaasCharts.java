package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;
import io.dkv.load.bench.html.BarChart;
import io.dkv.load.bench.html.Chart;
import io.dkv.load.bench.html.LineChart;
import io.dkv.load.bench.html.PercentileCurve;
import io.dkv.load.bench.html.Point;
import io.dkv.load.bench.html.Series;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The plots of {@code dkv bench raas --html}, one kind per part that ran: the first READ from a new node (join), ops/s
 * by connections (scale) and by threads (sharing), each beside its raw baseline, the latency percentile curves of
 * every RaaS READ beside the raw one (overhead), and the message round trip by size of each way (thresholds).
 */
final class RaasCharts
{
    static final String NANOS_AXIS = "latency (ns)";
    private static final int RAW_COLOUR = 1;

    private RaasCharts()
    {
    }

    static List<Chart> of(final RaasResults results)
    {
        final List<Chart> charts = new ArrayList<>();
        if (!results.join.isEmpty())
        {
            charts.add(bars("join: first 8 B READ from a new node, p50", "provider", NANOS_AXIS, results.join,
                row -> row.provider().toString(),
                List.of("RaaS", "fresh RC", "DC floor"),
                List.of(row -> row.raas().p50Nanos(), row -> row.raw().p50Nanos(), row -> row.floor().p50Nanos())));
        }
        for (final ScaleRow group : results.scaleGroups())
        {
            charts.add(bars("scale: 64 B READs by connections, " + group.provider() + " " + group.path(),
                "connections (RaaS) or queue pairs (raw)", "ops/s", results.scale(group.provider(), group.path()),
                row -> String.valueOf(row.connections()), List.of("RaaS", "raw"),
                List.of(ScaleRow::raasOpsPerSecond, ScaleRow::rawOpsPerSecond)));
        }
        for (final SharingRow group : RaasResults.firstOfEachPath(results.sharing))
        {
            charts.add(bars("sharing: 64 B READs by threads, " + group.provider() + " " + group.path(), "threads",
                "ops/s", RaasResults.on(results.sharing, group.provider(), group.path()),
                row -> String.valueOf(row.threads()), List.of("RaaS", "one QP under a lock"),
                List.of(row -> row.raas().opsPerSecond(), row -> row.locked().opsPerSecond())));
        }
        for (final Provider provider : results.overhead.stream().map(OverheadRow::provider).distinct().toList())
        {
            charts.add(overhead(provider, results.overhead));
        }
        for (final ThresholdRow group : results.thresholdGroups())
        {
            charts.add(bars("thresholds: message round trip by size, p50, " + group.provider() + " " + group.path(),
                "bytes", NANOS_AXIS, results.thresholds(group.provider(), group.path()),
                row -> String.valueOf(row.size()), List.of("SEND", "WRITE_WITH_IMM, COPY", "WRITE_WITH_IMM, REGISTER"),
                List.of(row -> row.hasSend() ? row.send().p50Nanos() : Double.NaN,
                    row -> row.writeCopy().p50Nanos(), row -> row.writeRegister().p50Nanos())));
        }
        return charts;
    }

    private static Chart overhead(final Provider provider, final List<OverheadRow> overhead)
    {
        final List<OverheadRow> rows = overhead.stream().filter(row -> row.provider() == provider).toList();
        final List<Series> series = new ArrayList<>();
        // every row of a provider carries the same raw READs, timed once in the blocks between theirs
        series.add(curve("raw verbs READ", RAW_COLOUR, false, rows.getFirst().raw()));
        int colour = 0;
        for (final OverheadRow row : rows)
        {
            series.add(curve("RaaS " + row.driver() + " " + row.path(), colour == RAW_COLOUR ? ++colour : colour,
                row.driver() == DriverMode.STANDALONE, row.raas()));
            colour++;
        }
        return LineChart.percentiles("overhead: synchronous " + rows.getFirst().size() + " B READ, " + provider +
            ", RaaS beside raw (standalone dashed)", NANOS_AXIS, series);
    }

    private static Series curve(final String name, final int colour, final boolean dashed, final Latency latency)
    {
        return new Series(name, colour, dashed,
            latency.histogram() == null ? List.of() : PercentileCurve.of(latency.histogram(), 1));
    }

    /** @return a bar chart of a category per row, a series per figure taken from each. */
    private static <R> Chart bars(
        final String title,
        final String xTitle,
        final String yTitle,
        final List<R> rows,
        final Function<R, String> category,
        final List<String> names,
        final List<ToDoubleFunction<R>> figures)
    {
        final List<Series> series = new ArrayList<>();
        for (int s = 0; s < names.size(); s++)
        {
            final ToDoubleFunction<R> figure = figures.get(s);
            series.add(new Series(names.get(s), s, false,
                rows.stream().map(row -> new Point(0, figure.applyAsDouble(row))).toList()));
        }
        return new BarChart(title, xTitle, yTitle, rows.stream().map(category).toList(), series);
    }
}

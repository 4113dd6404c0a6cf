package io.dkv.load.bench.compute;

import io.dkv.load.bench.html.BarChart;
import io.dkv.load.bench.html.Chart;
import io.dkv.load.bench.html.LineChart;
import io.dkv.load.bench.html.PercentileCurve;
import io.dkv.load.bench.html.Point;
import io.dkv.load.bench.html.Series;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The plots of {@code dkv bench compute --html}, one set per part that ran: ops/s and latency percentiles of the
 * compute node beside redis-server at each redis-benchmark setting, the starts' times, and the latency percentile
 * curve of each phase of the scale-out step.
 */
final class ComputeCharts
{
    static final String DKV = "compute node";
    static final String REDIS = "redis-server";
    static final double MICROS_PER_MILLI = 1000.0;
    static final double NANOS_PER_MILLI = 1e6;
    static final double NANOS_PER_MICRO = 1000.0;

    private ComputeCharts()
    {
    }

    static List<Chart> throughput(final ThroughputPart.Result result)
    {
        final List<Chart> charts = new ArrayList<>();
        for (final String test : result.rows().stream().map(ThroughputPart.Row::test).distinct().toList())
        {
            final List<ThroughputPart.Row> rows =
                result.rows().stream().filter(row -> row.test().equals(test)).toList();
            charts.add(new BarChart(test + ": ops/s by redis-benchmark setting (clients, pipeline)",
                "redis-benchmark setting", "ops/s", rows.stream().map(row -> row.setting().label()).toList(),
                List.of(series(DKV, 0, rows, row -> row.dkv().rps()),
                    series(REDIS, 1, rows, row -> row.redis().rps()))));
        }
        final List<ThroughputPart.Row> rows = result.rows();
        charts.add(new BarChart("latency percentiles by setting: p50 and p99, as redis-benchmark prints them",
            "test and setting", "latency (us)",
            rows.stream().map(row -> row.test() + " " + row.setting().label()).toList(),
            List.of(series(DKV + " p50", 0, rows, row -> row.dkv().p50Ms() * MICROS_PER_MILLI),
                series(REDIS + " p50", 1, rows, row -> row.redis().p50Ms() * MICROS_PER_MILLI),
                series(DKV + " p99", 4, rows, row -> row.dkv().p99Ms() * MICROS_PER_MILLI),
                series(REDIS + " p99", 3, rows, row -> row.redis().p99Ms() * MICROS_PER_MILLI))));
        return charts;
    }

    static List<Chart> join(final JoinPart.Result result)
    {
        final List<JoinPart.Series> starts = result.series();
        return List.of(new BarChart("join: exec to the first served request, median and p99", "process", "ms",
            starts.stream().map(JoinPart.Series::name).toList(),
            List.of(series("median", 0, starts, start -> Percentiles.of(start.totalsNs(), 50) / NANOS_PER_MILLI),
                series("p99", 3, starts, start -> Percentiles.of(start.totalsNs(), 99) / NANOS_PER_MILLI))));
    }

    static List<Chart> scale(final ScaleStepPart.Result result)
    {
        final List<Series> curves = new ArrayList<>();
        int colour = 0;
        for (final ScaleStepPart.Phase phase : result.phases())
        {
            curves.add(new Series(phase.name(), colour++, false,
                PercentileCurve.of(phase.latencies(), NANOS_PER_MICRO)));
        }
        return List.of(LineChart.percentiles("scale: request latency by phase of the scale-out step", "latency (us)",
            curves));
    }

    private static <R> Series series(final String name, final int colour, final List<R> rows,
        final ToDoubleFunction<R> figure)
    {
        return new Series(name, colour, false, rows.stream().map(row -> new Point(0, figure.applyAsDouble(row)))
            .toList());
    }
}

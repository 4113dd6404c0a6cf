package io.dkv.load.bench.ycsb;

import io.dkv.load.bench.html.BarChart;
import io.dkv.load.bench.html.Chart;
import io.dkv.load.bench.html.LineChart;
import io.dkv.load.bench.html.PercentileCurve;
import io.dkv.load.bench.html.Point;
import io.dkv.load.bench.html.Series;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The plots of {@code dkv bench ycsb --html}: per workload, ops/s by client threads for dkv (each replica count) and
 * Redis, and the latency percentile curves of every call on each store at each thread count; then the GET's reads
 * beside the floor of its three memory accesses.
 */
final class YcsbCharts
{
    static final double NANOS_PER_MICRO = 1000.0;
    static final String LATENCY_AXIS = "latency (us)";
    /** Redis keeps the colour after dkv's replica counts. */
    private static final int REDIS_COLOUR = 1;

    private YcsbCharts()
    {
    }

    static List<Chart> of(final List<ReplicaPass> passes, final GetFloors floor)
    {
        final List<SideBySide> baseline = passes.getFirst().runs();
        final Set<YcsbWorkload> workloads = new LinkedHashSet<>();
        final Set<Integer> threads = new LinkedHashSet<>();
        for (final SideBySide run : baseline)
        {
            if (run.phase() != null)
            {
                workloads.add(run.phase());
                threads.add(run.threads());
            }
        }
        final List<Chart> charts = new ArrayList<>();
        for (final YcsbWorkload workload : workloads)
        {
            charts.add(throughput(passes, workload, List.copyOf(threads)));
            charts.add(latency(baseline, workload));
        }
        final SideBySide reads = YcsbGoals.readsForFloor(baseline);
        if (reads != null)
        {
            charts.add(floor(reads, floor));
        }
        return charts;
    }

    private static Chart throughput(final List<ReplicaPass> passes, final YcsbWorkload workload,
        final List<Integer> threads)
    {
        final List<Series> series = new ArrayList<>();
        for (int p = 0; p < passes.size(); p++)
        {
            final ReplicaPass pass = passes.get(p);
            final List<Point> points = new ArrayList<>();
            for (final int count : threads)
            {
                final SideBySide run = pass.run(workload, count);
                points.add(new Point(count, run == null ? Double.NaN : run.dkv().opsPerSecond()));
            }
            series.add(new Series(passes.size() == 1 ? "dkv" : "dkv r=" + pass.replicas(),
                p == 0 ? 0 : p + REDIS_COLOUR, false, points));
        }
        final ReplicaPass baseline = passes.getFirst();
        if (threads.stream().anyMatch(count -> baseline.run(workload, count).hasRedis()))
        {
            series.add(new Series("Redis", REDIS_COLOUR, false, threads.stream().map(count ->
            {
                final SideBySide run = baseline.run(workload, count);
                return new Point(count, run.hasRedis() ? run.redis().opsPerSecond() : Double.NaN);
            }).toList()));
        }
        return new BarChart(workload.title() + ": throughput by client threads", "client threads", "ops/s",
            threads.stream().map(String::valueOf).toList(), series);
    }

    private static Chart latency(final List<SideBySide> runs, final YcsbWorkload workload)
    {
        final List<Series> series = new ArrayList<>();
        int colour = 0;
        for (final SideBySide run : runs)
        {
            if (run.phase() != workload)
            {
                continue;
            }
            final String threads = ", " + run.threads() + " thread" + (run.threads() == 1 ? "" : "s");
            series.add(curve("dkv" + threads, colour, false, run.dkv().latency()));
            if (run.hasRedis())
            {
                series.add(curve("Redis" + threads, colour, true, run.redis().latency()));
            }
            colour++;
        }
        return LineChart.percentiles(workload.title() + ": latency of every call into the store (Redis dashed)",
            LATENCY_AXIS, series);
    }

    private static Chart floor(final SideBySide reads, final GetFloors floor)
    {
        final String threads = reads.threads() + " thread" + (reads.threads() == 1 ? "" : "s");
        final List<Series> series = new ArrayList<>();
        series.add(curve("dkv GET", 0, false, reads.dkv().reads()));
        series.add(curve("floor: 3 READs", 2, false, floor.raas()));
        series.add(curve("floor: 3 raw READs", 3, true, floor.raw()));
        if (reads.hasRedis() && reads.redis().hasReads())
        {
            series.add(curve("Redis GET", REDIS_COLOUR, true, reads.redis().reads()));
        }
        return LineChart.percentiles("GET beside its floor: " + reads.title() + " reads, " + threads +
            ", and three synchronous READs", LATENCY_AXIS, series);
    }

    private static Series curve(final String name, final int colour, final boolean dashed, final Histogram histogram)
    {
        return new Series(name, colour, dashed, PercentileCurve.of(histogram, NANOS_PER_MICRO));
    }
}

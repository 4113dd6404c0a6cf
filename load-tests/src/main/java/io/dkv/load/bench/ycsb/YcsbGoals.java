package io.dkv.load.bench.ycsb;

import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The targets dkv is held to under YCSB, evaluated against a run: met or missed with the measured
 * figure, or not measured when the run did not include what a goal needs.
 */
final class YcsbGoals
{
    /** YCSB-C throughput per client thread against Redis's. */
    static final double MIN_READ_ONLY_RATIO = 10.0;
    /** YCSB-A throughput per client thread against Redis's. */
    static final double MIN_UPDATE_HEAVY_RATIO = 3.0;
    /** A GET's median against the median of its three memory accesses alone. */
    static final double MAX_GET_TO_FLOOR = 3.0;
    /** A GET against three raw verbs READs: what RaaS and the client's logic may add together. */
    static final double MAX_GET_TO_RAW_FLOOR = 1.3;

    private YcsbGoals()
    {
    }

    static List<String> evaluate(final List<SideBySide> runs, final GetFloors floors, final boolean redis)
    {
        final List<String> lines = new ArrayList<>();
        againstRedis(runs, YcsbWorkload.C, MIN_READ_ONLY_RATIO, redis, lines);
        againstRedis(runs, YcsbWorkload.A, MIN_UPDATE_HEAVY_RATIO, redis, lines);
        againstFloor(runs, floors.raas(), MAX_GET_TO_FLOOR, "%.0fx the floor of its three memory accesses", lines);
        againstFloor(runs, floors.raw(), MAX_GET_TO_RAW_FLOOR, "%.1fx the floor of three raw verbs READs", lines);
        return lines;
    }

    private static void againstRedis(
        final List<SideBySide> runs, final YcsbWorkload workload, final double minRatio, final boolean redis,
        final List<String> lines)
    {
        final String title =
            String.format(Locale.ROOT, "%s: dkv ops/s per client thread >= %.0fx Redis's", workload.title(),
            minRatio);
        final List<SideBySide> measured = runs.stream().filter(run -> run.phase() == workload).toList();
        if (measured.isEmpty() || !redis)
        {
            lines.add(title + ": NOT MEASURED (" +
                (measured.isEmpty() ? "workload " + workload.name().toLowerCase(Locale.ROOT) +
                " was not selected" : "Redis was off") + ")");
            return;
        }
        for (final SideBySide run : measured)
        {
            final double ratio = run.throughputRatio();
            lines.add(String.format(Locale.ROOT,
                "%s, %d thread%s: %s (measured %.2fx: dkv %,.0f, Redis %,.0f ops/s per thread)",
                title, run.threads(), run.threads() == 1 ? "" : "s", ratio >= minRatio ? "MET" : "MISSED", ratio,
                run.dkv().opsPerSecondPerThread(), run.redis().opsPerSecondPerThread()));
        }
    }

    private static void againstFloor(final List<SideBySide> runs, final Histogram floor, final double maxRatio,
        final String goal, final List<String> lines)
    {
        final String title = String.format(Locale.ROOT, "dkv GET p50 <= " + goal, maxRatio);
        final SideBySide reads = readsForFloor(runs);
        if (reads == null)
        {
            lines.add(title + ": NOT MEASURED (no workload with reads ran)");
            return;
        }
        final long get = reads.dkv().readP50Nanos();
        final long floorP50 = floor.getValueAtPercentile(50.0);
        final double ratio = (double)get / floorP50;
        lines.add(String.format(Locale.ROOT,
            "%s: %s (measured %.2fx: GET p50 %.1f us in %s with %d thread%s, floor p50 %.1f us)",
            title, ratio <= maxRatio ? "MET" : "MISSED", ratio, get / 1000.0, reads.title(), reads.threads(),
            reads.threads() == 1 ? "" : "s", floorP50 / 1000.0));
    }

    /**
     * @return the run whose reads are compared with the floor: the fewest threads (the floor is
     * measured from one), YCSB-C if it ran (reads only, nothing written meanwhile), else the first
     * workload with reads.
     */
    static SideBySide readsForFloor(final List<SideBySide> runs)
    {
        SideBySide chosen = null;
        for (final SideBySide run : runs)
        {
            if (run.phase() == null || !run.dkv().hasReads())
            {
                continue;
            }
            if (chosen == null || run.threads() < chosen.threads() ||
                run.threads() == chosen.threads() && run.phase() == YcsbWorkload.C && chosen.phase() != YcsbWorkload.C)
            {
                chosen = run;
            }
        }
        return chosen;
    }
}

package io.dkv.load.bench.ycsb;

import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.micros;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * What keeping more copies of each key costs: every phase of each replica count beside the same
 * phase of the baseline (the smallest count, measured in the same run), and the goals of issue 16
 * for two copies against one.
 */
final class ReplicationCost
{
    static final String TITLE = "replication: dkv with r copies of each key against the fewest, same run";
    /** YCSB-C throughput with two copies against one: reads touch one replica, the head. */
    static final double MIN_READ_ONLY_RATIO = 0.95;
    /** YCSB-A throughput with two copies against one: an update writes both and chains two CASes. */
    static final double MIN_UPDATE_HEAVY_RATIO = 0.6;

    private ReplicationCost()
    {
    }

    /**
     * @param passes one per replica count, the baseline (fewest copies) first.
     */
    static ReportSection section(final List<ReplicaPass> passes)
    {
        final ReplicaPass baseline = passes.getFirst();
        final String base = "r=" + baseline.replicas();
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("workload", false),
            new TextTable.Column("threads", true),
            new TextTable.Column("replicas", true),
            new TextTable.Column("ops/s", true),
            new TextTable.Column("ops/s / " + base, true),
            new TextTable.Column("p50", true),
            new TextTable.Column("p50 / " + base, true),
            new TextTable.Column("p99", true),
            new TextTable.Column("p99 / " + base, true),
            new TextTable.Column("failed", true)));
        final List<String> notes = new ArrayList<>();
        notes.add(String.format(Locale.ROOT, "each replica count a store of its own, all up at once; the runs of " +
            "a workload and thread count back to back on each, the order reversed from one to the next; ratios: to " +
            "the baseline (%s, the store beside Redis) at the same workload and thread count, ops/s higher and " +
            "latency (us) lower is better", base));
        notes.add("load: not compared: the stores load one after the other, the baseline first on a JVM still " +
            "compiling");
        for (final SideBySide baseRun : baseline.runs())
        {
            if (baseRun.phase() == null)
            {
                continue;
            }
            for (final ReplicaPass pass : passes)
            {
                final SideBySide run = pass.run(baseRun.phase(), baseRun.threads());
                if (run == null)
                {
                    continue;
                }
                final RunResult dkv = run.dkv();
                table.addRow(
                    run.title(),
                    count(run.threads()),
                    count(pass.replicas()),
                    opsPerSecond(dkv.opsPerSecond()),
                    ratio(dkv.opsPerSecond() / baseRun.dkv().opsPerSecond()),
                    micros(dkv.p50Nanos()),
                    ratio((double)dkv.p50Nanos() / baseRun.dkv().p50Nanos()),
                    micros(dkv.p99Nanos()),
                    ratio((double)dkv.p99Nanos() / baseRun.dkv().p99Nanos()),
                    count(dkv.failures()));
                if (dkv.failures() > 0)
                {
                    notes.add(String.format(Locale.ROOT, "dkv %s, %d threads, r=%d: %,d calls did not answer OK; the " +
                        "first: %s", run.title(), run.threads(), pass.replicas(), dkv.failures(),
                        dkv.firstFailure()));
                }
            }
        }
        return new ReportSection(TITLE, notes, table);
    }

    /**
     * @param passes one per replica count, the baseline first.
     * @return a line per goal and thread count: met or missed with the figures, or not measured.
     */
    static List<String> goals(final List<ReplicaPass> passes)
    {
        final List<String> lines = new ArrayList<>();
        twoCopiesAgainstOne(passes, YcsbWorkload.C, MIN_READ_ONLY_RATIO, lines);
        twoCopiesAgainstOne(passes, YcsbWorkload.A, MIN_UPDATE_HEAVY_RATIO, lines);
        return lines;
    }

    private static void twoCopiesAgainstOne(
        final List<ReplicaPass> passes, final YcsbWorkload workload, final double minRatio, final List<String> lines)
    {
        final String title = String.format(Locale.ROOT, "%s: dkv ops/s with 2 copies of each key >= %.2fx with 1",
            workload.title(), minRatio);
        final ReplicaPass one = pass(passes, 1);
        final ReplicaPass two = pass(passes, 2);
        if (one == null || two == null)
        {
            lines.add(title + ": NOT MEASURED (" + ReplicasOption.NAME + " did not include 1 and 2)");
            return;
        }
        final List<SideBySide> measured = one.runs().stream().filter(run -> run.phase() == workload).toList();
        if (measured.isEmpty())
        {
            lines.add(title + ": NOT MEASURED (workload " + workload.name().toLowerCase(Locale.ROOT) +
                " was not selected)");
            return;
        }
        for (final SideBySide single : measured)
        {
            final SideBySide twice = two.run(workload, single.threads());
            final double ratio = twice.dkv().opsPerSecond() / single.dkv().opsPerSecond();
            lines.add(String.format(Locale.ROOT,
                "%s, %d thread%s: %s (measured %.2fx: r=2 %,.0f, r=1 %,.0f ops/s)",
                title, single.threads(), single.threads() == 1 ? "" : "s", ratio >= minRatio ? "MET" : "MISSED",
                ratio, twice.dkv().opsPerSecond(), single.dkv().opsPerSecond()));
        }
    }

    private static ReplicaPass pass(final List<ReplicaPass> passes, final int replicas)
    {
        return passes.stream().filter(pass -> pass.replicas() == replicas).findFirst().orElse(null);
    }
}

package io.dkv.load.bench.membership;

import io.dkv.load.bench.ReportSection;
import io.dkv.load.bench.TextTable;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static io.dkv.load.bench.Formats.count;
import static io.dkv.load.bench.Formats.opsPerSecond;
import static io.dkv.load.bench.Formats.ratio;

/**
 * The benchmark's tables: the clients' latency in each window beside the window before any change, and the keys each
 * change moved beside loading them, with the time per GiB extrapolated from what moved.
 */
final class MembershipReport
{
    static final String CLIENTS_TITLE = "client load: before, during the join and during the drain";
    static final String MOVES_TITLE = "moving keys: the join and the drain beside loading the keys";
    static final String LOAD_ROW = "load (baseline)";
    static final String JOIN_ROW = "join";
    static final String DRAIN_ROW = "drain";
    private static final double GIB = 1 << 30;
    /** How much slower the clients' p99 may be during a change than before it (issue 34). */
    private static final double P99_GOAL = 10;

    private MembershipReport()
    {
    }

    static List<ReportSection> sections(final MembershipRun.Result result)
    {
        return List.of(clients(result), moves(result));
    }

    private static ReportSection clients(final MembershipRun.Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("window", false),
            new TextTable.Column("seconds", true),
            new TextTable.Column("reads", true),
            new TextTable.Column("updates", true),
            new TextTable.Column("failed", true),
            new TextTable.Column("ops/s", true),
            new TextTable.Column("ops/s / before", true),
            new TextTable.Column("p50 us", true),
            new TextTable.Column("p99 us", true),
            new TextTable.Column("p99.9 us", true),
            new TextTable.Column("max us", true),
            new TextTable.Column("p99 / before", true),
            new TextTable.Column("read p99 us", true),
            new TextTable.Column("update p99 us", true)));
        final Window before = result.before();
        final double beforeP99 = before.all().getValueAtPercentile(99);
        final List<String> notes = new ArrayList<>();
        for (final Window window : result.windows())
        {
            final Histogram all = window.all();
            table.addRow(window.name(), seconds(window.nanos()), count(window.reads().getTotalCount()),
                count(window.updates().getTotalCount()), count(window.failed()), opsPerSecond(window.opsPerSecond()),
                ratio(window.opsPerSecond() / before.opsPerSecond()), micros(all.getValueAtPercentile(50)),
                micros(all.getValueAtPercentile(99)), micros(all.getValueAtPercentile(99.9)),
                micros(all.getMaxValue()), ratio(all.getValueAtPercentile(99) / beforeP99),
                micros(window.reads().getValueAtPercentile(99)), micros(window.updates().getValueAtPercentile(99)));
            if (window.firstFailure() != null)
            {
                notes.add("first failure " + window.name() + ": " + window.firstFailure());
            }
        }
        final long failed = result.windows().stream().mapToLong(Window::failed).sum();
        notes.add(0, "latency: from when an operation was due (open loop, " + result.settings().rate() +
            " operations/s in all) to its return, so a thread held up counts the wait for each operation behind it");
        notes.add(1, "during the join: from the exec of ./dkv memory-node --join to the membership's steady end; " +
            "during the drain: from the exec of ./dkv memory-node --drain to its exit");
        notes.add(2, failed == 0 ? "0 failed operations (a read failed too if it returned no value of its key)" :
            count(failed) + " failed operations (a read failed too if it returned no value of its key)");
        return new ReportSection(CLIENTS_TITLE, notes, table);
    }

    private static ReportSection moves(final MembershipRun.Result result)
    {
        final TextTable table = new TextTable(List.of(
            new TextTable.Column("what", false),
            new TextTable.Column("copies moved", true),
            new TextTable.Column("MiB moved", true),
            new TextTable.Column("fill copied", true),
            new TextTable.Column("copy s", true),
            new TextTable.Column("MiB/s", true),
            new TextTable.Column("MiB/s / load", true),
            new TextTable.Column("wall s", true),
            new TextTable.Column("phase waits s", true),
            new TextTable.Column("copy s per GiB", true),
            new TextTable.Column("wall s per GiB", true)));
        final KeySpace keySpace = result.settings().keySpace();
        final KeyLoader.Pass load = result.load();
        final long loadCopies = load.keys() * result.settings().replicas();
        final double loadBytes = loadCopies * (double)keySpace.bytesPerKey();
        final double loadRate = loadBytes / (load.nanos() / 1e9);
        table.addRow(LOAD_ROW, count(loadCopies), ByteSize.mebibytes(loadBytes), count(loadCopies),
            seconds(load.nanos()), mebibytesPerSecond(loadRate), ratio(1.0), seconds(load.nanos()), "0.0",
            seconds(perGib(load.nanos(), loadBytes)), seconds(perGib(load.nanos(), loadBytes)));
        addChange(table, JOIN_ROW + " of memory node " + result.join().nodeId(), result.join(), keySpace, loadRate);
        if (result.drain() != null)
        {
            addChange(table, DRAIN_ROW + " of memory node " + result.drain().nodeId(), result.drain(), keySpace,
                loadRate);
        }
        final List<String> notes = new ArrayList<>();
        notes.add("copies moved: keys' copies placed on another memory node after the change than before it, as a " +
            "client places them (at one copy, keys); MiB moved: those x (key + value bytes), " +
            keySpace.bytesPerKey() + " B a key");
        notes.add("fill copied: keys the change's fill passes wrote onto the members entering their placement; the " +
            "others were there already (written by clients during fill, or, for the drain, still held by the node " +
            "they had moved off at the join)");
        notes.add("load (baseline): every key put through the benchmark's client on " +
            result.settings().loaders() + " threads, before the steady load");
        notes.add("copy s: the change's fill passes (every member's index scanned, the moving keys copied), as its " +
            "driver printed them; wall s: as during the join and the drain above; phase waits s: the view lease " +
            "plus an operation's timeout before each phase, which do not grow with the data");
        notes.add("per GiB: scaled linearly from the MiB each change moved in this run (copy s x GiB / MiB moved; " +
            "wall s the same for all but the phase waits): EXTRAPOLATED where a change moved less than 1 GiB, as " +
            "each change's line below says");
        notes.add(changeNote(JOIN_ROW, result.join(), keySpace));
        if (result.drain() != null)
        {
            notes.add(changeNote(DRAIN_ROW, result.drain(), keySpace));
        }
        return new ReportSection(MOVES_TITLE, notes, table);
    }

    private static void addChange(final TextTable table, final String name, final MembershipRun.Change change,
        final KeySpace keySpace, final double loadRate)
    {
        final ChangeLog log = change.log();
        final double bytes = change.copiesMoved() * (double)keySpace.bytesPerKey();
        final long copyNanos = TimeUnit.MILLISECONDS.toNanos(log.fillMs());
        final long gapNanos = TimeUnit.MILLISECONDS.toNanos(log.gapMs());
        final boolean moved = bytes > 0 && copyNanos > 0;
        final double rate = moved ? bytes / (copyNanos / 1e9) : 0;
        table.addRow(name, count(change.copiesMoved()), ByteSize.mebibytes(bytes), count(log.keysCopied()),
            seconds(copyNanos), mebibytesPerSecond(rate), ratio(rate / loadRate), seconds(change.wallNanos()),
            seconds(gapNanos), moved ? seconds(perGib(copyNanos, bytes)) : "-",
            moved ? seconds(gapNanos + perGib(Math.max(0, change.wallNanos() - gapNanos), bytes)) : "-");
    }

    private static String changeNote(final String name, final MembershipRun.Change change, final KeySpace keySpace)
    {
        final ChangeLog log = change.log();
        final double bytes = change.copiesMoved() * (double)keySpace.bytesPerKey();
        return String.format(Locale.ROOT, "%s: %d fill pass%s, handover passes (sealing the moving keys) %.1f s, " +
            "%.1f s from the driver's first look at the membership to its end; per GiB %s from %s MiB moved", name,
            log.fillPasses(), log.fillPasses() == 1 ? "" : "es", log.handoverMs() / 1e3, log.totalMs() / 1e3,
            bytes >= GIB ? "measured (scaled)" : "EXTRAPOLATED", ByteSize.mebibytes(bytes));
    }

    static List<String> goals(final MembershipRun.Result result)
    {
        final long failed = result.windows().stream().mapToLong(Window::failed).sum();
        final KeyLoader.Pass verify = result.verify();
        final List<String> goals = new ArrayList<>();
        goals.add(String.format(Locale.ROOT, "no failed client operation before or during the changes: %s (%,d " +
            "failed)", failed == 0 ? "MET" : "MISSED", failed));
        final double beforeP99 = result.before().all().getValueAtPercentile(99);
        final StringBuilder ratios = new StringBuilder();
        boolean within = true;
        for (final Window window : result.windows().subList(1, result.windows().size()))
        {
            final double ratio = window.all().getValueAtPercentile(99) / beforeP99;
            within &= ratio <= P99_GOAL;
            ratios.append(ratios.isEmpty() ? "" : ", ").append(window.name()).append(' ').append(ratio(ratio));
        }
        goals.add(String.format(Locale.ROOT, "client p99 during each change at most %.0fx the window before: %s (%s)",
            P99_GOAL, within ? "MET" : "MISSED", ratios));
        goals.add(String.format(Locale.ROOT, "every key holds a value of its own after the changes: %s (%,d of %,d " +
            "wrong or missing%s)", verify.mismatches() == 0 ? "MET" : "MISSED", verify.mismatches(), verify.keys(),
            verify.examples().isEmpty() ? "" : ", e.g. " + verify.examples().getFirst()));
        return goals;
    }

    private static long perGib(final long nanos, final double bytes)
    {
        return (long)(nanos * (GIB / bytes));
    }

    private static String seconds(final long nanos)
    {
        return String.format(Locale.ROOT, "%,.1f", nanos / 1e9);
    }

    private static String micros(final double nanos)
    {
        return String.format(Locale.ROOT, "%,.0f", nanos / 1000);
    }

    private static String mebibytesPerSecond(final double bytesPerSecond)
    {
        return String.format(Locale.ROOT, "%,.1f", bytesPerSecond / (1 << 20));
    }
}

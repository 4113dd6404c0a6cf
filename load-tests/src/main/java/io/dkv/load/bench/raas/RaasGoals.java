package io.dkv.load.bench.raas;

import io.dkv.load.bench.Provider;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The targets RaaS is held to, evaluated against a run's results: one line per provider and path,
 * met or missed with the measured figure, or not measured when its part did not run.
 */
final class RaasGoals
{
    /** The most connections may lose against the fewest, as a share of the fewest's throughput. */
    static final double MAX_SCALE_LOSS = 0.10;
    /** Heap a logical connection may take. */
    static final long MAX_BYTES_PER_CONNECTION = 256;
    /** Median of reaching a node for the first time through a standalone driver. */
    static final long MAX_JOIN_P50_NANOS = 10_000;
    /** Latency the embedded driver may add to a READ, as a share of the raw READ's. */
    static final double MAX_ADDED_LATENCY = 0.10;
    /** Latency a standalone driver may add to a READ. */
    static final long MAX_STANDALONE_ADDED_NANOS = 2_000;

    /** How much faster than a socket pair over loopback a stream's 1 MiB writes must go on shm. */
    static final double MIN_STREAM_RATIO = 2.0;
    static final int STREAM_GOAL_SIZE = 1 << 20;

    /** A latency application's p99 beside a bulk one, isolated, as a multiple of its p99 alone. */
    static final double MAX_ISOLATED_P99_RATIO = 2.0;
    /** The share of its solo throughput a bulk application keeps, isolated. */
    static final double MIN_BULK_KEPT = 0.8;

    /** In the order their lines are reported, each for every provider and path. */
    private static final List<PathGoal> PATH_GOALS =
        List.of(RaasGoals::scale, RaasGoals::memory, RaasGoals::overhead, RaasGoals::standaloneOverhead);

    private RaasGoals()
    {
    }

    static List<String> evaluate(final RaasResults results, final List<Provider> providers, final List<RaasPath> paths)
    {
        final List<String> lines = new ArrayList<>();
        for (final Provider provider : providers)
        {
            join(results, provider, lines);
        }
        streams(results, lines);
        for (final Provider provider : providers)
        {
            isolation(results, provider, lines);
        }
        for (final PathGoal goal : PATH_GOALS)
        {
            for (final Provider provider : providers)
            {
                for (final RaasPath path : paths)
                {
                    goal.evaluate(results, provider, path, lines);
                }
            }
        }
        return lines;
    }

    /** A goal held per provider and path: adds its line for them. */
    @FunctionalInterface
    private interface PathGoal
    {
        void evaluate(RaasResults results, Provider provider, RaasPath path, List<String> lines);
    }

    private static void join(final RaasResults results, final Provider provider, final List<String> lines)
    {
        final String title = provider + " join: first READ from a new node through a standalone driver, p50 <= " +
            nanosText(MAX_JOIN_P50_NANOS);
        for (final JoinRow row : results.join)
        {
            if (row.provider() == provider)
            {
                final long p50 = row.raas().p50Nanos();
                lines.add(String.format(Locale.ROOT, "%s: %s (measured %s, %.2fx a fresh RC queue pair's %s; the " +
                    "provider's own first READ to the node, from a ready DC initiator, takes %s)", title,
                    p50 <= MAX_JOIN_P50_NANOS ? "MET" : "MISSED", nanosText(p50), row.raas().p50Ratio(row.raw()),
                    nanosText(row.raw().p50Nanos()), nanosText(row.floor().p50Nanos())));
                return;
            }
        }
        lines.add(title + ": NOT MEASURED (join was not selected)");
    }

    private static void isolation(final RaasResults results, final Provider provider, final List<String> lines)
    {
        final String title = String.format(Locale.ROOT, "%s isolation: READ p99 beside a bulk application <= " +
            "%.1fx alone, the bulk application keeping >= %.0f%% of its throughput", provider, MAX_ISOLATED_P99_RATIO,
            MIN_BULK_KEPT * 100);
        for (final IsolationRow row : results.isolation)
        {
            if (row.provider() == provider)
            {
                final boolean met = row.isolatedP99Ratio() <= MAX_ISOLATED_P99_RATIO && row.bulkKept() >= MIN_BULK_KEPT;
                lines.add(String.format(Locale.ROOT, "%s: %s (measured %.2fx and %.0f%%; without isolation %.2fx " +
                    "and %.0f%%)", title, met ? "MET" : "MISSED", row.isolatedP99Ratio(), row.bulkKept() * 100,
                    row.sharedP99Ratio(), row.bulkShared() / row.bulkSolo() * 100));
                return;
            }
        }
        lines.add(title + ": NOT MEASURED (isolation was not selected)");
    }

    private static void streams(final RaasResults results, final List<String> lines)
    {
        final String title = String.format(Locale.ROOT, "shm streams: %,d B writes >= %.1fx a SocketChannel pair " +
            "over loopback", STREAM_GOAL_SIZE, MIN_STREAM_RATIO);
        for (final StreamRow row : results.streams)
        {
            if (row.provider() == Provider.SHM && row.size() == STREAM_GOAL_SIZE)
            {
                lines.add(String.format(Locale.ROOT, "%s: %s (measured %.2fx, %,.0f against %,.0f MB/s, %.0f%% direct)",
                    title, row.ratio() >= MIN_STREAM_RATIO ? "MET" : "MISSED", row.ratio(),
                    row.raasBytesPerSec() / 1e6, row.socketBytesPerSec() / 1e6, row.directShare() * 100));
                return;
            }
        }
        lines.add(title + ": NOT MEASURED (streams with shm and " + STREAM_GOAL_SIZE + " B writes was not selected)");
    }

    private static String nanosText(final long nanos)
    {
        return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
    }

    private static void scale(final RaasResults results, final Provider provider, final RaasPath path,
        final List<String> lines)
    {
        final String title = provider + " " + path + " scale: most connections within " + percent(MAX_SCALE_LOSS) +
            " of the fewest";
        final List<ScaleRow> rows = results.scale(provider, path);
        if (rows.size() < 2)
        {
            lines.add(title + ": NOT MEASURED (" + (results.parts.contains(Part.SCALE) ?
                "fewer than two connection counts" : "scale was not selected") + ")");
            return;
        }
        final ScaleRow fewest = rows.get(0);
        final ScaleRow most = rows.get(rows.size() - 1);
        final double ratio = most.raasOpsPerSecond() / fewest.raasOpsPerSecond();
        lines.add(String.format(Locale.ROOT, "%s, %,d against %,d: %s (measured %.2fx)",
            title, most.connections(), fewest.connections(), ratio >= 1.0 - MAX_SCALE_LOSS ? "MET" : "MISSED", ratio));
    }

    private static void memory(final RaasResults results, final Provider provider, final RaasPath path,
        final List<String> lines)
    {
        final String title = provider + " " + path + " memory: <= " + MAX_BYTES_PER_CONNECTION +
            " B of heap per logical connection";
        final List<ScaleRow> rows = results.scale(provider, path);
        if (rows.isEmpty())
        {
            lines.add(title + ": NOT MEASURED (scale was not selected)");
            return;
        }
        final ScaleRow most = rows.get(rows.size() - 1);
        final long bytes = most.raasMemory().heapBytes();
        lines.add(String.format(Locale.ROOT, "%s, at %,d: %s (measured %,d B)",
            title, most.connections(), bytes <= MAX_BYTES_PER_CONNECTION ? "MET" : "MISSED", bytes));
    }

    private static void overhead(final RaasResults results, final Provider provider, final RaasPath path,
        final List<String> lines)
    {
        final String title = provider + " " + path + " overhead: embedded READ p50 <= " +
            String.format(Locale.ROOT, "%.2f", 1.0 + MAX_ADDED_LATENCY) + "x raw verbs";
        for (final OverheadRow row : results.overhead)
        {
            if (row.provider() == provider && row.path() == path && row.driver() == DriverMode.EMBEDDED)
            {
                final double ratio = row.raas().p50Ratio(row.raw());
                lines.add(String.format(Locale.ROOT, "%s, %d B: %s (measured %.2fx, %+,d ns)",
                    title, row.size(), ratio <= 1.0 + MAX_ADDED_LATENCY ? "MET" : "MISSED", ratio,
                    row.addedP50Nanos()));
                return;
            }
        }
        lines.add(title + ": NOT MEASURED (overhead was not selected)");
    }

    private static void standaloneOverhead(
        final RaasResults results, final Provider provider, final RaasPath path, final List<String> lines)
    {
        final String title = provider + " " + path + " standalone: standalone driver READ p50 <= raw verbs + " +
            nanosText(MAX_STANDALONE_ADDED_NANOS);
        for (final OverheadRow row : results.overhead)
        {
            if (row.provider() == provider && row.path() == path && row.driver() == DriverMode.STANDALONE)
            {
                final long added = row.addedP50Nanos();
                lines.add(String.format(Locale.ROOT, "%s, %d B: %s (measured %+,d ns, %.2fx)", title, row.size(),
                    added <= MAX_STANDALONE_ADDED_NANOS ? "MET" : "MISSED", added, row.raas().p50Ratio(row.raw())));
                return;
            }
        }
        lines.add(title + ": NOT MEASURED (overhead was not selected)");
    }

    private static String percent(final double share)
    {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }
}

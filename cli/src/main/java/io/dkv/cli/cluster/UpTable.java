package io.dkv.cli.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The table {@code dkv up} prints once its cluster serves: each role, its pid, where it serves and its log, then how
 * to read each role's figures while it runs. Compute nodes serve Prometheus text at {@code /metrics}; the MetaServer,
 * the memory nodes and the driver serve no HTTP, and their counters are read from their counters files by the
 * command given ({@code --counters}), from another process, the role undisturbed.
 */
final class UpTable
{
    private static final int WHERE_WIDTH = 40;

    private UpTable()
    {
    }

    /**
     * One role of the cluster.
     *
     * @param role    its kind, e.g. "memory node".
     * @param pid     its process.
     * @param where   what it serves and where.
     * @param log     its log file's name.
     * @param metrics the command that reads its metrics or counters.
     */
    record Row(String role, long pid, String where, String log, String metrics)
    {
    }

    /** @return the table's lines, then the metrics part's, one role a line in each. */
    static List<String> lines(final List<Row> rows)
    {
        final List<String> lines = new ArrayList<>();
        lines.add(String.format("%-14s %-8s %-" + WHERE_WIDTH + "s %s", "role", "pid", "where", "log"));
        for (final Row row : rows)
        {
            // a longer 'where' runs on rather than lose its end (a port, a node id)
            lines.add(String.format("%-14s %-8d %-" + WHERE_WIDTH + "s %s", row.role(), row.pid(), row.where(),
                row.log()));
        }
        lines.add("");
        lines.add("metrics (compute nodes: Prometheus text) and counters, read while the cluster runs:");
        for (final Row row : rows)
        {
            lines.add(String.format("  %-14s %-8d %s", row.role(), row.pid(), row.metrics()));
        }
        return lines;
    }

    /** @return how to read a MetaServer's counters, which it serves over no HTTP endpoint. */
    static String metaCounters(final String nodeId)
    {
        return "./dkv meta --counters --node-id " + nodeId;
    }

    /** @return how to read a memory node's counters (its embedded driver's among them). */
    static String memoryNodeCounters(final String nodeId)
    {
        return "./dkv memory-node --counters --node-id " + nodeId;
    }

    /** @return how to read the standalone driver's counters: it is known by its name. */
    static String driverCounters(final String driverName)
    {
        return "./dkv driver --counters --name " + driverName;
    }

    /** @return how to read a compute node's metrics endpoint. */
    static String computeMetrics(final String url)
    {
        return "curl -s " + url;
    }

    /**
     * @param urls the metrics endpoints of the autoscaler's nodes serving at its start, as its ready line lists them
     *             (comma separated), or null when it listed none.
     * @return how to read them; a node it adds later says its own on its "serving" line.
     */
    static String autoscalerMetrics(final String urls)
    {
        final List<String> reads = new ArrayList<>();
        if (urls != null)
        {
            for (final String url : urls.split(",\\s*"))
            {
                if (!url.isBlank())
                {
                    reads.add(computeMetrics(url.strip()));
                }
            }
        }
        return (reads.isEmpty() ? "" : String.join("; ", reads) + " ") +
            "(its nodes; one it adds names its own as it serves)";
    }

    /** @return {@code text} cut to the 'where' column, for a MetaServer's endpoint, which the cluster file keeps. */
    static String shorten(final String text)
    {
        return text.length() <= WHERE_WIDTH ? text : text.substring(0, WHERE_WIDTH - 3) + "...";
    }
}

package io.dkv.compute.metrics;

import io.dkv.client.node.MemoryNodeHeap;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.store.PoolHeaders;
import io.dkv.raas.driver.DriverCounter;
import io.dkv.raas.driver.DriverCounters;

import java.math.BigDecimal;
import java.util.function.Supplier;

/**
 * A compute node's figures in the Prometheus text exposition format 0.0.4, each with its HELP and TYPE: what an
 * autoscaler reads to tell whether nodes should come or go, and the counters of the RaaS driver the node embeds
 * ({@link DriverCounter}, as {@code dkv_raas_*}), and the memory nodes' heaps as the node last read them
 * ({@code dkv_memory_node_heap_bytes}, labelled by node and kind). The names are fixed; others parse them.
 */
public final class PrometheusText
{
    /** The format's content type, as Prometheus asks for it. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final String DURATION = "dkv_compute_command_duration_seconds";

    private final NodeStats stats;
    private final long nodeId;
    /** Null when the node embeds no driver (it was given a client, or it attached to a standalone driver). */
    private final DriverCounters driverCounters;
    /** The memory nodes' headers as last read; {@link PoolHeaders.Reading#NONE} where nothing reads them. */
    private final Supplier<PoolHeaders.Reading> pool;

    /**
     * @param stats  the node's figures.
     * @param nodeId the node's id, 0 when it has none.
     */
    public PrometheusText(final NodeStats stats, final long nodeId)
    {
        this(stats, nodeId, null, () -> PoolHeaders.Reading.NONE);
    }

    /**
     * @param stats          the node's figures.
     * @param nodeId         the node's id, 0 when it has none.
     * @param driverCounters the counters of the driver the node embeds; null when it embeds none.
     * @param pool           the memory nodes' headers as last read.
     */
    public PrometheusText(final NodeStats stats, final long nodeId, final DriverCounters driverCounters,
        final Supplier<PoolHeaders.Reading> pool)
    {
        this.stats = stats;
        this.nodeId = nodeId;
        this.driverCounters = driverCounters;
        this.pool = pool;
    }

    /** @return the exposition, read now. */
    public String render()
    {
        final LatencySnapshot latency = stats.latency().snapshot();
        final ProcessCpu cpu = stats.cpu();
        final StringBuilder out = new StringBuilder(4096);
        metric(out, "dkv_compute_ops_per_second", "gauge", stats.instantaneousOpsPerSec(),
            "Commands a second: the mean of the last 16 samples, one each 100 ms (INFO instantaneous_ops_per_sec).");
        metric(out, "dkv_compute_commands_total", "counter", stats.commandsProcessed(),
            "Commands processed since start (INFO total_commands_processed).");
        header(out, DURATION, "summary", "Time from a request decoded to its reply written: quantiles over the " +
            "recent window (NaN when it holds none), sum and count since start.");
        sample(out, DURATION + "{quantile=\"0.5\"}", seconds(latency.windowCount(), latency.p50Nanos()));
        sample(out, DURATION + "{quantile=\"0.99\"}", seconds(latency.windowCount(), latency.p99Nanos()));
        sample(out, DURATION + "_sum", number(latency.sumNanos() / 1e9));
        sample(out, DURATION + "_count", Long.toString(latency.count()));
        metric(out, "dkv_compute_cpu_utilization", "gauge", cpu.utilization(),
            "This process's CPU time over wall time times available processors, over the recent window: 0 to 1.");
        metric(out, "dkv_compute_connections", "gauge", stats.connectedNow(), "RESP connections open now.");
        metric(out, "dkv_compute_connections_received_total", "counter", stats.connectionsReceived(),
            "RESP connections accepted since start.");
        metric(out, "dkv_compute_connections_rejected_total", "counter", stats.connectionsRejected(),
            "RESP connections refused since start, beyond maxclients.");
        metric(out, "dkv_compute_protocol_errors_total", "counter", stats.protocolErrors(),
            "RESP protocol errors since start, each of which closed its connection.");
        metric(out, "dkv_compute_output_limit_closes_total", "counter", stats.outputLimitCloses(),
            "RESP connections closed since start for passing the output limit (client-output-buffer-limit).");
        metric(out, "dkv_compute_clients_evicted_total", "counter", stats.clientsEvicted(),
            "RESP connections closed since start for the replies all connections held (maxmemory-clients).");
        metric(out, "dkv_compute_clients_output_bytes", "gauge", stats.clientsOutputBytes(),
            "Reply bytes pending across the node's RESP connections, as last summed (every 100 ms).");
        metric(out, "dkv_compute_auth_failures_total", "counter", stats.authFailures(),
            "Failed AUTHs (and HELLO AUTHs) since start.");
        metric(out, "dkv_compute_draining", "gauge", stats.draining() ? 1 : 0,
            "1 once the node began to close (it accepts no more connections), else 0.");
        metric(out, "dkv_compute_node_id", "gauge", nodeId, "The node's id in the cluster (0 when it has none).");
        metric(out, "process_cpu_seconds_total", "counter", cpu.cpuSeconds(),
            "Total user and system CPU time spent in seconds.");
        metric(out, "process_start_time_seconds", "gauge", cpu.startTimeSeconds(),
            "Start time of the process since unix epoch in seconds.");
        if (driverCounters != null)
        {
            driver(out, driverCounters);
        }
        heaps(out, pool.get());
        return out.toString();
    }

    /** Each memory node whose heap header told its figures: bytes by kind, and its pinned chunks (INFO memory's). */
    private static void heaps(final StringBuilder out, final PoolHeaders.Reading reading)
    {
        header(out, "dkv_memory_node_heap_bytes", "gauge", "A memory node's heap as the node last read it (at most " +
            "a second ago): capacity, handed_out (being written, live or awaiting reclaim), live (its index's " +
            "blocks), reserve (kept for deletes), room (what writes other than deletes may still take), limit (its " +
            "share of the pool's maxmemory; 0: none).");
        for (final MemoryNodeHeap heap : reading.heaps())
        {
            if (heap.told())
            {
                final String node = "{node=\"" + Long.toUnsignedString(heap.nodeId()) + "\",kind=\"";
                sample(out, "dkv_memory_node_heap_bytes" + node + "capacity\"}", Long.toString(heap.capacity()));
                sample(out, "dkv_memory_node_heap_bytes" + node + "handed_out\"}", Long.toString(heap.handedOut()));
                sample(out, "dkv_memory_node_heap_bytes" + node + "live\"}", Long.toString(heap.live()));
                sample(out, "dkv_memory_node_heap_bytes" + node + "reserve\"}", Long.toString(heap.reserve()));
                sample(out, "dkv_memory_node_heap_bytes" + node + "room\"}", Long.toString(heap.room()));
                sample(out, "dkv_memory_node_heap_bytes" + node + "limit\"}", Long.toString(Math.max(0,
                    heap.limit())));
            }
        }
        header(out, "dkv_memory_node_chunks_pinned", "gauge", "A memory node's retired chunks that a live block " +
            "still held at its last walk of its index: memory the reclaimer cannot free until the block is rewritten.");
        for (final MemoryNodeHeap heap : reading.heaps())
        {
            if (heap.told())
            {
                sample(out, "dkv_memory_node_chunks_pinned{node=\"" + Long.toUnsignedString(heap.nodeId()) + "\"}",
                    Integer.toString(heap.pinned()));
            }
        }
    }

    /** One family per counter, but for the requests, one family labelled by opcode (declared one after another). */
    private static void driver(final StringBuilder out, final DriverCounters counters)
    {
        String family = "";
        for (final DriverCounter counter : DriverCounter.values())
        {
            final String metric = counter.metric();
            final int labels = metric.indexOf('{');
            final String name = labels < 0 ? metric : metric.substring(0, labels);
            if (!name.equals(family))
            {
                family = name;
                header(out, name, "counter", labels < 0 ? "The RaaS driver's counter: " + counter.label() + "." :
                    "Requests the node's RaaS driver made, by opcode.");
            }
            sample(out, metric, Long.toString(counters.value(counter)));
        }
    }

    private static void metric(final StringBuilder out, final String name, final String type, final long value,
        final String help)
    {
        header(out, name, type, help);
        sample(out, name, Long.toString(value));
    }

    private static void metric(final StringBuilder out, final String name, final String type, final double value,
        final String help)
    {
        header(out, name, type, help);
        sample(out, name, number(value));
    }

    private static void header(final StringBuilder out, final String name, final String type, final String help)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(final StringBuilder out, final String name, final String value)
    {
        out.append(name).append(' ').append(value).append('\n');
    }

    private static String seconds(final long count, final long nanos)
    {
        return count == 0 ? "NaN" : number(nanos / 1e9);
    }

    /**
     * A plain decimal ({@code 0.0000125}, {@code 1795403781.84}), never Java's exponent form: Prometheus would read
     * that too, but a reader that parses figures by hand may not.
     */
    static String number(final double value)
    {
        if (Double.isNaN(value))
        {
            return "NaN";
        }
        if (Double.isInfinite(value))
        {
            return value > 0 ? "+Inf" : "-Inf";
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}

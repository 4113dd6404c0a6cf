package io.dkv.compute.autoscale;

import java.util.Locale;

/**
 * What the autoscaler holds each compute node to: one of the figures a node's metrics endpoint gives, with the
 * target per node that it scales towards when none is given.
 */
public enum ScalingMetric
{
    /** Commands a second (the node's instantaneous rate, redis's way). */
    OPS("dkv_compute_ops_per_second", 20_000, "ops/s"),
    /** The process's CPU time over the host's CPU capacity, 0 to 1. */
    CPU("dkv_compute_cpu_utilization", 0.5, "CPU"),
    /** Open client connections. */
    CONNECTIONS("dkv_compute_connections", 1_000, "connections"),
    /** The recent 99th percentile of a command's time on the node, in seconds. */
    P99("dkv_compute_command_duration_seconds{quantile=\"0.99\"}", 0.001, "p99 s");

    private final String series;
    private final double defaultTarget;
    private final String unit;

    ScalingMetric(final String series, final double defaultTarget, final String unit)
    {
        this.series = series;
        this.defaultTarget = defaultTarget;
        this.unit = unit;
    }

    /** @return the Prometheus series (name and labels) read from each node. */
    public String series()
    {
        return series;
    }

    /** @return the target per node used when none is given. */
    public double defaultTarget()
    {
        return defaultTarget;
    }

    /** @return how a figure of this metric is named in the autoscaler's messages. */
    public String unit()
    {
        return unit;
    }

    /**
     * @param name as given on the command line, any case.
     * @throws IllegalArgumentException naming the value and the choices.
     */
    public static ScalingMetric parse(final String name)
    {
        for (final ScalingMetric metric : values())
        {
            if (metric.name().equalsIgnoreCase(name))
            {
                return metric;
            }
        }
        throw new IllegalArgumentException("--metric " + name + " is not one of ops, cpu, connections, p99");
    }

    public String toString()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}

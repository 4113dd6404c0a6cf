package io.dkv.cli.cluster;

import io.dkv.compute.autoscale.ScalingMetric;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code dkv up --compute MIN..MAX} hands the {@code ./dkv autoscale} it starts: the bounds, where it serves, and
 * the {@code --metric} and {@code --target} given to {@code up}, checked as {@code ./dkv autoscale} checks them, before
 * any role starts, so that a wrong value is one line naming it rather than an autoscaler that dies after the rest.
 */
final class UpAutoscale
{
    private final int min;
    private final int max;
    private final ScalingMetric metric;
    private final Double target;

    /**
     * @param min    fewest compute nodes.
     * @param max    most compute nodes, or -1 when {@code --compute} named a fixed count (no autoscaler).
     * @param metric {@code --metric} as given, or null for the autoscaler's default.
     * @param target {@code --target} as given, or null for the metric's default.
     * @throws IllegalArgumentException naming the option and its value: a metric that is not one, a target that is
     *                                  not a positive number, either without a range of compute nodes to scale.
     */
    UpAutoscale(final int min, final int max, final String metric, final Double target)
    {
        if (max < 0 && (metric != null || target != null))
        {
            throw new IllegalArgumentException((metric != null ? "--metric " + metric : "--target " + target) +
                " is for the autoscaler: give --compute MIN..MAX (--compute " + min + " runs " + min +
                " fixed compute node" + (min == 1 ? "" : "s") + ")");
        }
        this.min = min;
        this.max = max;
        this.metric = metric == null ? null : ScalingMetric.parse(metric);
        if (target != null && (!(target > 0) || target.isInfinite()))
        {
            // autoscale's own words for it (AutoscalerContext.conclude)
            throw new IllegalArgumentException("--target " + target + " for " +
                (this.metric == null ? ScalingMetric.OPS : this.metric) + " is not a positive number");
        }
        this.target = target;
    }

    /** @return whether {@code --compute} named a range, run by an autoscaler. */
    boolean enabled()
    {
        return max >= 0;
    }

    /**
     * @param port     the RESP port its nodes share.
     * @param provider the verbs provider.
     * @param endpoint the MetaServer's endpoint.
     * @param secret   the cluster secret file.
     * @param logDir   where its nodes' logs go.
     * @return the arguments of {@code dkv autoscale}, the role's name first.
     */
    List<String> arguments(
        final int port,
        final String provider,
        final String endpoint,
        final String secret,
        final Path logDir)
    {
        final List<String> arguments = new ArrayList<>(List.of("autoscale", "--min", Integer.toString(min), "--max",
            Integer.toString(max), "--port", Integer.toString(port), "--provider", provider, "--meta", endpoint,
            "--cluster-secret-file", secret, "--log-dir", logDir.toString()));
        if (metric != null)
        {
            arguments.addAll(List.of("--metric", metric.toString()));
        }
        if (target != null)
        {
            arguments.addAll(List.of("--target", target.toString()));
        }
        return arguments;
    }
}

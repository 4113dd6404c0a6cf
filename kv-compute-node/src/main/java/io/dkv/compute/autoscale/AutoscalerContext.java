package io.dkv.compute.autoscale;

import io.dkv.clock.CommonContext;

import java.io.IOException;
import java.util.Map;
import java.util.function.Consumer;

import static io.dkv.compute.autoscale.AutoscalerConfiguration.*;

/**
 * How an {@link Autoscaler} runs: bounds, the metric and its target, HPA's periods and windows, and what starts and
 * reads the nodes. Fluent setters; {@link #conclude()} checks the values together and fills what was not set.
 *
 * <p>{@link #epochClock()} is the autoscaler's wall clock: its lines are stamped with the time of day it reads.
 * {@link #nanoClock()} is what the periods, windows and timeouts are measured by. Left unset, the process's
 * ({@link io.dkv.clock.Clocks}).
 */
public final class AutoscalerContext extends CommonContext<AutoscalerContext>
{
    private int minNodes = Integer.getInteger(MIN_NODES_PROP_NAME, MIN_NODES_DEFAULT);
    private int maxNodes = Integer.getInteger(MAX_NODES_PROP_NAME, MAX_NODES_DEFAULT);
    private ScalingMetric metric = ScalingMetric.OPS;
    private double target = Double.NaN;
    private double tolerance = Double.parseDouble(System.getProperty(TOLERANCE_PROP_NAME, "" + TOLERANCE_DEFAULT));
    private long syncPeriodMs = Long.getLong(SYNC_PERIOD_PROP_NAME, SYNC_PERIOD_DEFAULT_MS);
    private long upWindowMs = Long.getLong(UP_WINDOW_PROP_NAME, UP_WINDOW_DEFAULT_MS);
    private long downWindowMs = Long.getLong(DOWN_WINDOW_PROP_NAME, DOWN_WINDOW_DEFAULT_MS);
    private int scrapeTimeoutMs = Integer.getInteger(SCRAPE_TIMEOUT_PROP_NAME, SCRAPE_TIMEOUT_DEFAULT_MS);
    private long startTimeoutMs = Long.getLong(START_TIMEOUT_PROP_NAME, START_TIMEOUT_DEFAULT_MS);
    private long drainTimeoutMs = Long.getLong(DRAIN_TIMEOUT_PROP_NAME, DRAIN_TIMEOUT_DEFAULT_MS);
    private String metricsHost = "127.0.0.1";
    private NodeLauncher launcher;
    private LoadReader loadReader;
    private Consumer<String> events;

    /** Reads one node's metrics: its samples by series. */
    @FunctionalInterface
    public interface LoadReader
    {
        Map<String, Double> read(ManagedNode node) throws IOException;
    }

    /**
     * Check the values together and fill in what was not set: the metric's target, the load reader, the clocks (the
     * process's) and where events go.
     *
     * @return this.
     */
    public AutoscalerContext conclude()
    {
        if (minNodes < 1 || maxNodes < minNodes || maxNodes > MAX_NODES_LIMIT)
        {
            throw new IllegalArgumentException("compute nodes " + minNodes + ".." + maxNodes +
                ": need 1 <= MIN <= MAX <= " +
                MAX_NODES_LIMIT);
        }
        if (Double.isNaN(target))
        {
            target = metric.defaultTarget();
        }
        if (!(target > 0) || Double.isInfinite(target))
        {
            throw new IllegalArgumentException("--target " + target + " for " + metric + " is not a positive number");
        }
        if (!(tolerance >= 0 && tolerance < 1))
        {
            throw new IllegalArgumentException("--tolerance " + tolerance + " is not in [0, 1)");
        }
        if (syncPeriodMs <= 0)
        {
            throw new IllegalArgumentException("--sync-period " + syncPeriodMs + " ms is not positive");
        }
        if (upWindowMs < 0 || downWindowMs < 0)
        {
            throw new IllegalArgumentException("stabilization windows " + upWindowMs + " ms (up), " + downWindowMs +
                " ms (down): neither may be negative");
        }
        if (scrapeTimeoutMs <= 0 || startTimeoutMs <= 0 || drainTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("timeouts must be positive: scrape " + scrapeTimeoutMs + " ms, start " +
                startTimeoutMs + " ms, drain " + drainTimeoutMs + " ms");
        }
        if (launcher == null)
        {
            throw new IllegalArgumentException("no launcher: the autoscaler needs to know how to start a compute node");
        }
        if (loadReader == null)
        {
            final MetricsScrape scrape = new MetricsScrape(metricsHost, scrapeTimeoutMs);
            loadReader = node -> scrape.scrape(node.metricsPort());
        }
        super.conclude();
        if (events == null)
        {
            events = line -> { };
        }
        return this;
    }

    public int minNodes()
    {
        return minNodes;
    }

    public AutoscalerContext minNodes(final int minNodes)
    {
        this.minNodes = minNodes;
        return this;
    }

    public int maxNodes()
    {
        return maxNodes;
    }

    public AutoscalerContext maxNodes(final int maxNodes)
    {
        this.maxNodes = maxNodes;
        return this;
    }

    public ScalingMetric metric()
    {
        return metric;
    }

    public AutoscalerContext metric(final ScalingMetric metric)
    {
        this.metric = metric;
        return this;
    }

    /** @return the figure wanted per node; the metric's default when NaN. */
    public double target()
    {
        return target;
    }

    public AutoscalerContext target(final double target)
    {
        this.target = target;
        return this;
    }

    public double tolerance()
    {
        return tolerance;
    }

    public AutoscalerContext tolerance(final double tolerance)
    {
        this.tolerance = tolerance;
        return this;
    }

    public long syncPeriodMs()
    {
        return syncPeriodMs;
    }

    public AutoscalerContext syncPeriodMs(final long syncPeriodMs)
    {
        this.syncPeriodMs = syncPeriodMs;
        return this;
    }

    public long upWindowMs()
    {
        return upWindowMs;
    }

    public AutoscalerContext upWindowMs(final long upWindowMs)
    {
        this.upWindowMs = upWindowMs;
        return this;
    }

    public long downWindowMs()
    {
        return downWindowMs;
    }

    public AutoscalerContext downWindowMs(final long downWindowMs)
    {
        this.downWindowMs = downWindowMs;
        return this;
    }

    public int scrapeTimeoutMs()
    {
        return scrapeTimeoutMs;
    }

    public AutoscalerContext scrapeTimeoutMs(final int scrapeTimeoutMs)
    {
        this.scrapeTimeoutMs = scrapeTimeoutMs;
        return this;
    }

    public long startTimeoutMs()
    {
        return startTimeoutMs;
    }

    public AutoscalerContext startTimeoutMs(final long startTimeoutMs)
    {
        this.startTimeoutMs = startTimeoutMs;
        return this;
    }

    public long drainTimeoutMs()
    {
        return drainTimeoutMs;
    }

    public AutoscalerContext drainTimeoutMs(final long drainTimeoutMs)
    {
        this.drainTimeoutMs = drainTimeoutMs;
        return this;
    }

    /** @return the address the nodes' metrics endpoints are read at (their bind address; loopback by default). */
    public String metricsHost()
    {
        return metricsHost;
    }

    public AutoscalerContext metricsHost(final String metricsHost)
    {
        this.metricsHost = metricsHost;
        return this;
    }

    public NodeLauncher launcher()
    {
        return launcher;
    }

    public AutoscalerContext launcher(final NodeLauncher launcher)
    {
        this.launcher = launcher;
        return this;
    }

    public LoadReader loadReader()
    {
        return loadReader;
    }

    /** @param loadReader how a node's metrics are read; by default its endpoint over HTTP. */
    public AutoscalerContext loadReader(final LoadReader loadReader)
    {
        this.loadReader = loadReader;
        return this;
    }

    public Consumer<String> events()
    {
        return events;
    }

    /** @param events takes one line per thing the autoscaler did and why (a node started, drained, lost). */
    public AutoscalerContext events(final Consumer<String> events)
    {
        this.events = events;
        return this;
    }
}

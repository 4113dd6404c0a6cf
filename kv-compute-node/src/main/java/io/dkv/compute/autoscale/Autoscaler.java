package io.dkv.compute.autoscale;

import io.dkv.compute.autoscale.ManagedNode.State;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a host's compute nodes between a minimum and a maximum, as many as their load asks for: each sync period it
 * reads every serving node's figure and lets a {@link ScalingPolicy} decide; more nodes are started at once, fewer are
 * drained (the newest first, those still starting before those serving, as a ReplicaSet chooses). Each sync is a
 * line on its output: what it saw and what it did, or, when it holds, which rule held it ({@link SyncReport}).
 * Between decisions it watches its nodes: one that exits unasked, or does not serve within the start timeout, is
 * reported and replaced when fewer than the minimum are left; one whose drain hangs past the drain timeout is killed.
 *
 * <p>An Agrona {@link Agent}: one thread runs {@link #doWork()}, and nothing here blocks but the reading of the nodes'
 * metrics (each bounded by the scrape timeout).
 */
public final class Autoscaler implements Agent, AutoCloseable
{
    private final AutoscalerContext context;
    private final NanoClock clock;
    private final ScalingPolicy policy;
    private final SyncReport report;
    /** Written by the duty cycle only; copied on write so that other threads may list the nodes. */
    private final List<Tracked> nodes = new CopyOnWriteArrayList<>();
    private final double[] figures;
    private long nextSyncNs;
    private int launched;
    private int scaleUps;
    private int scaleDowns;
    private int lost;
    private ScalingPolicy.Decision lastDecision;
    private volatile double newTarget = Double.NaN;
    private boolean closed;

    /**
     * Start the minimum of nodes (they join while the caller goes on).
     *
     * @param context how; concluded here.
     */
    public Autoscaler(final AutoscalerContext context)
    {
        this.context = context.conclude();
        this.clock = context.nanoClock();
        this.policy = new ScalingPolicy(context.minNodes(), context.maxNodes(), context.target(), context.tolerance(),
            context.upWindowMs(), context.downWindowMs());
        this.report = new SyncReport(this.context);
        this.figures = new double[context.maxNodes() * 2];
        final long now = clock.nanoTime();
        // the first decision waits a period, as HPA's first sync: the nodes just started have no load yet
        this.nextSyncNs = now + TimeUnit.MILLISECONDS.toNanos(context.syncPeriodMs());
        launch(context.minNodes(), now, "the minimum");
    }

    public String roleName()
    {
        return "dkv-autoscaler";
    }

    /** Run by an AgentRunner's close on the duty cycle's thread: the nodes drain as on {@link #close()}. */
    public void onClose()
    {
        close();
    }

    public int doWork()
    {
        if (closed)
        {
            return 0;
        }
        final long now = clock.nanoTime();
        int work = watch(now);
        final int running = running();
        if (running < context.minNodes())
        {
            launch(context.minNodes() - running, now, "fewer than the minimum of " + context.minNodes() + " running");
            work++;
        }
        if (now - nextSyncNs >= 0)
        {
            nextSyncNs = now + TimeUnit.MILLISECONDS.toNanos(context.syncPeriodMs());
            work += sync(now);
        }
        return work;
    }

    private int watch(final long now)
    {
        int work = 0;
        for (int i = nodes.size() - 1; i >= 0; i--)
        {
            final Tracked tracked = nodes.get(i);
            final State before = tracked.state;
            final State state = tracked.node.poll();
            tracked.state = state;
            if (state == State.EXITED)
            {
                nodes.remove(i);
                if (before == State.DRAINING)
                {
                    event(tracked.node.describe() + " drained and exited");
                }
                else
                {
                    lost++;
                    event(tracked.node.describe() + " exited while " + before.name().toLowerCase(Locale.ROOT) + ": " +
                        tracked.node.exitReport());
                }
                work++;
            }
            else if (state == State.STARTING && nanosSince(tracked.sinceNs, now) > context.startTimeoutMs())
            {
                event(tracked.node.describe() + " did not serve within " + context.startTimeoutMs() + " ms: killed");
                tracked.node.kill();
                tracked.state = State.DRAINING;
                tracked.sinceNs = now;
                work++;
            }
            else if (state == State.DRAINING && nanosSince(tracked.sinceNs, now) > context.drainTimeoutMs())
            {
                event(tracked.node.describe() + " did not finish draining within " + context.drainTimeoutMs() +
                    " ms: killed");
                tracked.node.kill();
                tracked.sinceNs = now;
                work++;
            }
            else if (before == State.STARTING && state == State.SERVING)
            {
                // its metrics endpoint, for an operator to read a node the autoscaler added
                event(tracked.node.describe() + " serving after " + nanosSince(tracked.sinceNs, now) + " ms" +
                    (tracked.node.metricsPort() > 0 ? "; metrics on " + metricsUrl(tracked.node) : ""));
                work++;
            }
        }
        return work;
    }

    private int sync(final long now)
    {
        final double retargeted = newTarget;
        if (!Double.isNaN(retargeted))
        {
            newTarget = Double.NaN;
            policy.target(retargeted);
            event("target now " + figure(retargeted) + " " + context.metric().unit() + " per node");
        }
        int reported = 0;
        for (final Tracked tracked : nodes)
        {
            if (tracked.state != State.SERVING)
            {
                continue;
            }
            try
            {
                final Map<String, Double> samples = context.loadReader().read(tracked.node);
                final Double figure = samples.get(context.metric().series());
                if (figure != null && !figure.isNaN() && !figure.isInfinite())
                {
                    figures[reported++] = Math.max(0, figure);
                }
            }
            catch (final IOException ex)
            {
                // counted as missing: the policy damps any change by it
            }
        }
        final int running = running();
        final ScalingPolicy.Decision decision = policy.recommend(TimeUnit.NANOSECONDS.toMillis(now), running, figures,
            reported);
        lastDecision = decision;
        if (decision.desired() > running)
        {
            scaleUps++;
            launch(decision.desired() - running, now, report.change(decision, running, policy.target()));
            return 1;
        }
        if (decision.desired() < running)
        {
            scaleDowns++;
            drain(running - decision.desired(), now, report.change(decision, running, policy.target()));
            return 1;
        }
        // a sync that changes nothing says so too: under load, silence cannot be told from an autoscaler that hangs
        event(report.hold(decision, running, policy.target()));
        return 0;
    }

    /** @return a figure as an operator reads it: whole above 1,000 (ops/s, connections), else four digits. */
    public static String figure(final double value)
    {
        return Math.abs(value) >= 1_000 ? String.format(Locale.ROOT, "%,.0f", value) :
            String.format(Locale.ROOT, "%.4g", value);
    }

    private void launch(final int count, final long now, final String why)
    {
        event("starting " + count + " compute node" + (count == 1 ? "" : "s") + ": " + why);
        for (int i = 0; i < count; i++)
        {
            final ManagedNode node = context.launcher().launch(launched++);
            nodes.add(new Tracked(node, now));
        }
    }

    private void drain(final int count, final long now, final String why)
    {
        event("draining " + count + " compute node" + (count == 1 ? "" : "s") + ": " + why);
        int left = count;
        // the newest first, those not yet serving before those serving
        for (final State wanted : new State[]{State.STARTING, State.SERVING})
        {
            for (int i = nodes.size() - 1; i >= 0 && left > 0; i--)
            {
                final Tracked tracked = nodes.get(i);
                if (tracked.state == wanted)
                {
                    event("draining " + tracked.node.describe());
                    tracked.node.drain();
                    tracked.state = State.DRAINING;
                    tracked.sinceNs = now;
                    left--;
                }
            }
        }
    }

    private void event(final String line)
    {
        context.events().accept(line);
    }

    private static long nanosSince(final long sinceNs, final long nowNs)
    {
        return TimeUnit.NANOSECONDS.toMillis(nowNs - sinceNs);
    }

    /**
     * Hold the nodes to another figure from the next decision on; any thread may call it (what a load shift is to
     * the autoscaler, the harness makes by a new target).
     *
     * @param target the figure wanted per node, above 0.
     */
    public void retarget(final double target)
    {
        if (!(target > 0) || Double.isInfinite(target))
        {
            throw new IllegalArgumentException("target " + target + " per node is not a positive number");
        }
        newTarget = target;
    }

    /**
     * @param node one of its nodes, serving.
     * @return where the node serves its metrics, as the autoscaler reads them.
     */
    public String metricsUrl(final ManagedNode node)
    {
        final String host = context.metricsHost();
        return "http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + node.metricsPort() + "/metrics";
    }

    /** @return the nodes serving now, oldest first; any thread may call it. */
    public List<ManagedNode> servingNodes()
    {
        return nodes.stream().filter(tracked -> tracked.state == State.SERVING).map(tracked -> tracked.node).toList();
    }

    /** @return nodes starting or serving: those a decision counts. */
    public int running()
    {
        return count(State.STARTING) + count(State.SERVING);
    }

    /** @return nodes serving now. */
    public int serving()
    {
        return count(State.SERVING);
    }

    /** @return nodes draining now. */
    public int draining()
    {
        return count(State.DRAINING);
    }

    private int count(final State state)
    {
        int count = 0;
        for (final Tracked tracked : nodes)
        {
            if (tracked.state == state)
            {
                count++;
            }
        }
        return count;
    }

    /** @return the nodes not yet exited, oldest first; any thread may call it. */
    public List<ManagedNode> nodes()
    {
        return nodes.stream().map(tracked -> tracked.node).toList();
    }

    public int scaleUps()
    {
        return scaleUps;
    }

    public int scaleDowns()
    {
        return scaleDowns;
    }

    /** @return nodes that exited unasked, or did not serve in time. */
    public int lost()
    {
        return lost;
    }

    /** @return the last decision, or null before the first. */
    public ScalingPolicy.Decision lastDecision()
    {
        return lastDecision;
    }

    /** @return the context it runs with, concluded. */
    public AutoscalerContext context()
    {
        return context;
    }

    /**
     * Drain every node and wait for them to exit, killing those still there after the drain timeout: what the
     * autoscaler's own stop does, so that its nodes leave as they would one by one.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final long start = clock.nanoTime();
        for (final Tracked tracked : nodes)
        {
            tracked.node.drain();
            tracked.state = State.DRAINING;
        }
        while (!nodes.isEmpty())
        {
            final long now = clock.nanoTime();
            for (final Tracked tracked : nodes)
            {
                if (tracked.node.poll() == State.EXITED)
                {
                    nodes.remove(tracked);
                    event(tracked.node.describe() + " drained and exited");
                }
            }
            if (nanosSince(start, now) > context.drainTimeoutMs())
            {
                for (final Tracked tracked : nodes)
                {
                    event(tracked.node.describe() + " did not finish draining within " + context.drainTimeoutMs() +
                        " ms: killed");
                    tracked.node.kill();
                }
                nodes.clear();
            }
            else if (!nodes.isEmpty())
            {
                try
                {
                    Thread.sleep(10);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    nodes.forEach(tracked -> tracked.node.kill());
                    nodes.clear();
                }
            }
        }
    }

    /** A node and what the autoscaler last saw of it. */
    private static final class Tracked
    {
        private final ManagedNode node;
        private volatile State state = State.STARTING;
        private long sinceNs;

        Tracked(final ManagedNode node, final long sinceNs)
        {
            this.node = node;
            this.sinceNs = sinceNs;
        }
    }
}

package io.dkv.compute.autoscale;

import java.util.ArrayDeque;

/**
 * How many compute nodes the load asks for, by the rule of Kubernetes' HorizontalPodAutoscaler (its replica calculator
 * and its default behaviour), so that an operator who knows one knows the other:
 * <ol>
 *     <li>the ratio of the mean figure per reporting node to the target; within the tolerance of 1, nothing changes;
 *     otherwise the nodes wanted are that ratio times the reporting nodes, rounded up;</li>
 *     <li>nodes without a figure (starting, or not answering) count as idle when the load asks for more nodes and as
 *     exactly at target when it asks for fewer, so that they can only damp a change, and a change they reverse or
 *     bring within tolerance does not happen;</li>
 *     <li>stabilization: a scale-up goes no higher than the lowest recommendation within the scale-up window, a
 *     scale-down no lower than the highest within the scale-down window, so a short dip does not remove a node that
 *     the next burst needs again;</li>
 *     <li>at most double the nodes, or four more, in one step (HPA's default scale-up policies), and never outside
 *     the minimum and maximum.</li>
 * </ol>
 * One thread calls it: the autoscaler's duty cycle.
 */
public final class ScalingPolicy
{
    private final int min;
    private final int max;
    private double target;
    private final double tolerance;
    private final long upWindowMs;
    private final long downWindowMs;
    private final ArrayDeque<long[]> history = new ArrayDeque<>();

    /**
     * @param min          fewest nodes, at least 1.
     * @param max          most nodes, at least {@code min}.
     * @param target       the figure wanted per node, above 0.
     * @param tolerance    how far from 1 the ratio may be with nothing done, in [0, 1).
     * @param upWindowMs   scale-up stabilization window (HPA: 0).
     * @param downWindowMs scale-down stabilization window (HPA: 300 s).
     */
    public ScalingPolicy(
        final int min,
        final int max,
        final double target,
        final double tolerance,
        final long upWindowMs,
        final long downWindowMs)
    {
        if (min < 1 || max < min)
        {
            throw new IllegalArgumentException("nodes between " + min + " and " + max + ": need 1 <= min <= max");
        }
        if (!(target > 0) || Double.isInfinite(target))
        {
            throw new IllegalArgumentException("target " + target + " per node is not a positive number");
        }
        if (!(tolerance >= 0 && tolerance < 1))
        {
            throw new IllegalArgumentException("tolerance " + tolerance + " is not in [0, 1)");
        }
        if (upWindowMs < 0 || downWindowMs < 0)
        {
            throw new IllegalArgumentException("stabilization windows " + upWindowMs + " ms (up) and " + downWindowMs +
                " ms (down) cannot be negative");
        }
        this.min = min;
        this.max = max;
        this.target = target;
        this.tolerance = tolerance;
        this.upWindowMs = upWindowMs;
        this.downWindowMs = downWindowMs;
    }

    /**
     * @param nowMs    the autoscaler's clock.
     * @param current  nodes running now (serving or starting; not those draining).
     * @param figures  the figure of each node that reported, in {@code [0, reported)}.
     * @param reported how many of {@code figures} are set.
     * @return the nodes to run, and why.
     */
    public Decision recommend(final long nowMs, final int current, final double[] figures, final int reported)
    {
        final int missing = Math.max(0, current - reported);
        double sum = 0;
        for (int i = 0; i < reported; i++)
        {
            sum += figures[i];
        }
        final double perNode = reported == 0 ? Double.NaN : sum / reported;
        int raw = current;
        double ratio = Double.NaN;
        if (reported > 0)
        {
            ratio = perNode / target;
            if (Math.abs(ratio - 1) > tolerance)
            {
                raw = withMissing(ratio, sum, reported, missing, current);
            }
        }
        final int stabilized = stabilize(nowMs, current, raw);
        final int limited = Math.min(stabilized, Math.max(current * 2, current + 4));
        final int desired = Math.clamp(limited, min, max);
        return new Decision(desired, raw, perNode, ratio, reported, missing);
    }

    private int withMissing(
        final double ratio, final double sum, final int reported, final int missing, final int current)
    {
        if (missing == 0)
        {
            return (int)Math.ceil(ratio * reported - 1e-9);
        }
        final double assumed = ratio < 1 ? target : 0;
        final double newRatio = (sum + missing * assumed) / ((reported + missing) * target);
        if (Math.abs(newRatio - 1) <= tolerance || (ratio > 1) != (newRatio > 1))
        {
            return current;
        }
        return (int)Math.ceil(newRatio * (reported + missing) - 1e-9);
    }

    private int stabilize(final long nowMs, final int current, final int raw)
    {
        history.addLast(new long[]{nowMs, raw});
        final long oldest = nowMs - Math.max(upWindowMs, downWindowMs);
        while (!history.isEmpty() && history.peekFirst()[0] < oldest)
        {
            history.removeFirst();
        }
        int up = raw;
        int down = raw;
        for (final long[] entry : history)
        {
            if (entry[0] >= nowMs - upWindowMs)
            {
                up = Math.min(up, (int)entry[1]);
            }
            if (entry[0] >= nowMs - downWindowMs)
            {
                down = Math.max(down, (int)entry[1]);
            }
        }
        int recommendation = current;
        if (recommendation < up)
        {
            recommendation = up;
        }
        if (recommendation > down)
        {
            recommendation = down;
        }
        return recommendation;
    }

    public int min()
    {
        return min;
    }

    public int max()
    {
        return max;
    }

    public double target()
    {
        return target;
    }

    /** @param target the figure wanted per node from the next recommendation on, above 0. */
    public void target(final double target)
    {
        if (!(target > 0) || Double.isInfinite(target))
        {
            throw new IllegalArgumentException("target " + target + " per node is not a positive number");
        }
        this.target = target;
    }

    public double tolerance()
    {
        return tolerance;
    }

    /**
     * One decision.
     *
     * @param desired  nodes to run after it.
     * @param raw      what the load alone asked for, before stabilization, step limits and bounds.
     * @param perNode  the mean figure of the nodes that reported (NaN when none did).
     * @param ratio    {@code perNode} over the target (NaN when none reported).
     * @param reported nodes that gave a figure.
     * @param missing  nodes counted that gave none (starting, or not answering).
     */
    public record Decision(int desired, int raw, double perNode, double ratio, int reported, int missing)
    {
    }
}

package io.dkv.compute.autoscale;

import java.util.Locale;

/**
 * Words one sync of the autoscaler for its output: the figures it read and what it decided, and, when it keeps the
 * nodes it has, which rule kept them. An operator watching a loaded cluster that does not grow needs to tell "within
 * tolerance" from "at --max" from "the scale-down window still holds it" without reading the policy's code.
 */
final class SyncReport
{
    private final AutoscalerContext context;

    /** @param context the autoscaler's, concluded: its metric, bounds, tolerance and windows are named. */
    SyncReport(final AutoscalerContext context)
    {
        this.context = context;
    }

    /**
     * @param decision the policy's decision.
     * @param running  the nodes counted (starting and serving).
     * @param target   the target per node the decision was made against.
     * @return why the nodes change: the move and the figures behind it.
     */
    String change(final ScalingPolicy.Decision decision, final int running, final double target)
    {
        return running + " -> " + decision.desired() + " compute nodes: " + figures(decision, target);
    }

    /**
     * @param decision a decision that keeps {@code running} nodes.
     * @param running  the nodes counted (starting and serving).
     * @param target   the target per node the decision was made against.
     * @return the line of a sync that changes nothing: what it saw, and which rule held the nodes.
     */
    String hold(final ScalingPolicy.Decision decision, final int running, final double target)
    {
        final String nodes = "holding at " + running + " compute node" + (running == 1 ? "" : "s") + ": ";
        if (decision.reported() == 0)
        {
            return nodes + "no node gave a figure of " + context.metric().unit() + " yet (" + decision.missing() +
                " starting or not answering), against a target of " + Autoscaler.figure(target) + " per node";
        }
        return nodes + figures(decision, target) + "; " + holdReason(decision, running);
    }

    private String holdReason(final ScalingPolicy.Decision decision, final int running)
    {
        if (Math.abs(decision.ratio() - 1) <= context.tolerance())
        {
            return String.format(Locale.ROOT, "within the tolerance of %.2f", context.tolerance());
        }
        if (decision.raw() > running)
        {
            return running >= context.maxNodes() ?
                "the load asks for " + decision.raw() + ", but --max is " + context.maxNodes() :
                "the load asks for " + decision.raw() + ", but the scale-up window of " +
                    seconds(context.upWindowMs()) + " holds a lower recommendation made within it";
        }
        if (decision.raw() < running)
        {
            return running <= context.minNodes() ?
                "the load asks for " + decision.raw() + ", but --min is " + context.minNodes() :
                "the load asks for " + decision.raw() + ", but the scale-down window of " +
                    seconds(context.downWindowMs()) + " holds a higher recommendation made within it";
        }
        if (decision.missing() == 0)
        {
            // HPA rounds up: 1 node at a tenth of its target still asks for 1
            return String.format(Locale.ROOT, "the load asks for ceil(%.2f x %d) = %d, as many as run",
                decision.ratio(), decision.reported(), decision.raw());
        }
        // outside the tolerance, yet the load alone asks for these nodes: the nodes without a figure, counted idle
        // (more wanted) or at target (fewer wanted), brought it within tolerance or turned it round
        return decision.missing() + " node" + (decision.missing() == 1 ? "" : "s") + " without a figure, counted " +
            (decision.ratio() > 1 ? "idle" : "at the target") + (decision.missing() == 1 ? ", damps" : ", damp") +
            " the change";
    }

    private String figures(final ScalingPolicy.Decision decision, final double target)
    {
        return String.format(Locale.ROOT, "%s per node %s against a target of %s (ratio %.2f, tolerance %.2f; " +
            "%d reported, %d without a figure)", context.metric().unit(), Autoscaler.figure(decision.perNode()),
            Autoscaler.figure(target), decision.ratio(), context.tolerance(), decision.reported(), decision.missing());
    }

    private static String seconds(final long ms)
    {
        return ms % 1_000 == 0 ? ms / 1_000 + " s" : ms + " ms";
    }
}

package io.dkv.load.check.nemesis;

import io.dkv.compute.autoscale.Autoscaler;

import java.util.List;
import java.util.Locale;

/**
 * The load surges past what the autoscaler's compute nodes are held to, for the hold and the time for new nodes to
 * join, then calms: the autoscaler starts nodes up to its maximum, then drains them after its scale-down window. The
 * load itself stays as it is: the autoscaler's target per node moves under it.
 */
final class ScaleFault extends FaultKind
{
    static final String NAME = "scale";

    /** How long a surge lasts beyond its hold: time for new compute nodes' JVMs to start and join. */
    private static final long JOIN_MS = 3_000;

    ScaleFault()
    {
        super(NAME);
    }

    String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        return cluster.autoscaled() ? null :
            "nemesis '" + NAME + "' needs --autoscale MIN..MAX (and --through compute)";
    }

    String unfit(final List<FaultKind> asked, final NemesisTargets targets)
    {
        return targets.autoscaler() == null ? "scale faults need compute nodes run by an autoscaler" : null;
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final NemesisTargets targets = nemesis.targets();
        final Autoscaler autoscaler = targets.autoscaler();
        final long holdMs = strike.holdMs();
        final long start = nemesis.sinceOrigin();
        final int before = autoscaler.running();
        nemesis.log(String.format(Locale.ROOT, "nemesis: scale: target %.4g ops/s per node (was %.4g) for %d ms",
            targets.surgeTarget(), targets.calmTarget(), holdMs + JOIN_MS));
        autoscaler.retarget(targets.surgeTarget());
        nemesis.sleep(holdMs + JOIN_MS);
        final int during = autoscaler.running();
        autoscaler.retarget(targets.calmTarget());
        nemesis.caused(new NemesisEvent(NAME, "compute nodes", start, nemesis.sinceOrigin(),
            before + " running before, " + during + " at the surge's end"));
    }
}

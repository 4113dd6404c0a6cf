package io.dkv.load.check.nemesis;

import io.dkv.compute.autoscale.ManagedNode;
import io.dkv.load.check.harness.Role;

/**
 * SIGSTOP, then SIGCONT after the hold: a role or a compute node the autoscaler runs frozen with its connections open,
 * as a long GC pause or an overloaded host would leave it.
 */
final class PauseFault extends FaultKind
{
    static final String NAME = "pause";

    PauseFault()
    {
        super(NAME, Trait.MAY_OVERLAP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        if (strike.picksNode())
        {
            pause(nemesis, strike.node(), strike.holdMs());
        }
        else
        {
            pause(nemesis, NAME, strike.role(), strike.holdMs());
        }
    }

    /** @param label what the log and the timeline call the fault. */
    static void pause(final Nemesis nemesis, final String label, final Role target, final long holdMs)
    {
        nemesis.holdRole(label, target, holdMs, "", (role, hold, why) ->
        {
            role.pause();
            nemesis.sleep(hold);
            role.resume();
            return why;
        });
    }

    /** Pause a compute node the autoscaler runs: the log and the timeline call it a pause, however long it holds. */
    static void pause(final Nemesis nemesis, final ManagedNode target, final long holdMs)
    {
        nemesis.holdNode(NAME, target, holdMs, (node, hold) ->
        {
            node.pause();
            nemesis.sleep(hold);
            node.resume();
            return "";
        });
    }
}

package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;

/**
 * SIGKILL, gone at once as in a crash: a role is restarted after the hold (its data directory kept, so that it comes
 * back with what it acknowledged); a compute node the autoscaler runs is not, the autoscaler replacing what it lost. A
 * memory node is spared, saying why, while killing it could take the last copy of a key that serves
 * ({@link MemoryNodeKills}).
 */
final class KillFault extends FaultKind
{
    static final String NAME = "kill";

    KillFault()
    {
        super(NAME, Trait.MAY_OVERLAP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        if (strike.picksNode())
        {
            nemesis.holdNode(NAME, strike.node(), strike.holdMs(), (node, holdMs) ->
            {
                node.kill();
                nemesis.sleep(holdMs);
                return "not restarted: the autoscaler replaces what it lost";
            });
        }
        else
        {
            kill(nemesis, NAME, strike.role(), strike.holdMs(), "");
        }
    }

    /**
     * Kill a role and restart it after the hold, unless it is a memory node that may not be killed now.
     *
     * @param label what the log and the timeline call the fault.
     * @param why   what made the nemesis pick the target, for the log; empty when it drew it.
     */
    static void kill(final Nemesis nemesis, final String label, final Role target, final long holdMs, final String why)
    {
        final String whyNot = nemesis.targets().memoryKills().whyNot(target);
        if (whyNot != null)
        {
            nemesis.skipped(label, target, whyNot);
            return;
        }
        nemesis.holdRole(label, target, holdMs, why, (role, hold, detail) ->
        {
            role.kill();
            nemesis.sleep(hold);
            return detail + (detail.isEmpty() ? "" : "; ") + nemesis.restart(role);
        });
    }
}

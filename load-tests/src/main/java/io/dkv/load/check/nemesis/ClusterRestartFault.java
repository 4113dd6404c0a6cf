package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Every role of the cluster at once, the clients aside: the MetaServer, the memory nodes, the driver and the compute
 * nodes, then each started again in the order the cluster first started them, on their data directories. As
 * {@link #KILL} (SIGKILL: a power cut of every host) the disks are the only truth, and under durability sync nothing a
 * client was told is written may be lost; as {@link #STOP} (SIGTERM, each in the reverse order: the compute nodes
 * first, the MetaServer last, as {@code ./dkv up} stops them) a clean stop flushes whatever was not yet fsynced. The
 * clients ride it out, their operations failing or waiting meanwhile. Struck only while every memory node is live and
 * no change runs ({@link MemoryNodeKills}).
 */
final class ClusterRestartFault extends FaultKind
{
    static final String KILL = "kill-cluster";
    static final String STOP = "restart-cluster";

    private final boolean clean;

    ClusterRestartFault(final boolean clean)
    {
        super(clean ? STOP : KILL, Trait.READS_MEMBERSHIP);
        this.clean = clean;
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        if (!nemesis.mayStrikeEveryMemoryNode(name()))
        {
            return;
        }
        final List<Role> roles = new ArrayList<>();
        for (final Role role : nemesis.roles())
        {
            if (!role.name().startsWith(CheckCluster.CLIENT))
            {
                roles.add(role);
            }
        }
        final List<Role> taken = nemesis.takeAll(name(), roles);
        if (taken == null)
        {
            return;
        }
        try
        {
            restartAll(nemesis, taken, strike.holdMs());
        }
        finally
        {
            taken.forEach(nemesis::release);
        }
    }

    private void restartAll(final Nemesis nemesis, final List<Role> roles, final long holdMs)
    {
        final long start = nemesis.sinceOrigin();
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s for %d ms, then each started again", name(),
            KillAllMemoryFault.processes(roles), holdMs));
        if (clean)
        {
            for (int i = roles.size() - 1; i >= 0; i--)
            {
                roles.get(i).stop();
            }
        }
        else
        {
            roles.forEach(Role::kill);
        }
        final long lossesUntil = nemesis.sinceOrigin();
        nemesis.sleep(holdMs);
        final StringBuilder restarts = new StringBuilder();
        for (final Role role : roles)
        {
            restarts.append(restarts.isEmpty() ? "" : "; ").append(role).append(' ').append(nemesis.restart(role));
        }
        nemesis.log("nemesis: " + name() + ": " + restarts);
        nemesis.caused(new NemesisEvent(name(), roles.size() + " roles", start, nemesis.sinceOrigin(),
            (clean ? "every role stopped cleanly: " : "every role killed at once: ") + restarts, start, lossesUntil));
    }
}

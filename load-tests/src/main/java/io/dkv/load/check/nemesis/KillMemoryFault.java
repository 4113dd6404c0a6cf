package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;
import io.dkv.meta.MetaServerConfiguration;

import java.util.List;
import java.util.Locale;

/**
 * Where keys have several copies: SIGKILL of a memory node, held dead past its lease ({@link #DOWN_MS}) and the hold,
 * so that the MetaServer declares it down and clients go on with the other copies; then a restart, after which it
 * comes back joining, refills its copies itself and is live again. Skipped, saying why, while any memory node is not
 * live ({@link MemoryNodeKills}).
 */
final class KillMemoryFault extends FaultKind
{
    static final String NAME = "kill-memory";

    /**
     * How long a memory node stays dead before its hold: its lease and the MetaServer's check of it, after which it
     * is declared down.
     */
    static final long DOWN_MS =
        MetaServerConfiguration.LEASE_MS_DEFAULT + MetaServerConfiguration.LEASE_CHECK_MS_DEFAULT;

    KillMemoryFault()
    {
        super(NAME, Trait.MAY_OVERLAP, Trait.READS_MEMBERSHIP);
    }

    String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        return cluster.replicas() >= 2 ? null : "nemesis '" + NAME + "' needs --replicas 2 or more (it is " +
            cluster.replicas() + "): with one copy a key is unavailable while its memory node is down, and nothing " +
            "refills it";
    }

    String unfit(final List<FaultKind> asked, final NemesisTargets targets)
    {
        final MemoryNodeKills kills = targets.memoryKills();
        return kills.replicas() >= 2 && !kills.memoryNodes().isEmpty() ? null : NAME + " needs memory nodes keeping " +
            "2 or more copies of each key: " + kills.memoryNodes().size() + " memory nodes, " + kills.replicas() +
            " copies";
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final MemoryNodeKills kills = nemesis.targets().memoryKills();
        final List<Role> memoryNodes = kills.memoryNodes();
        final Role target = memoryNodes.get(strike.pick() % memoryNodes.size());
        final String why = kills.whyNot(target);
        if (why != null)
        {
            nemesis.skipped(NAME, target, why);
            return;
        }
        if (!nemesis.take(NAME, target, true))
        {
            return;
        }
        try
        {
            killAndHold(nemesis, kills, target, strike.holdMs());
        }
        finally
        {
            nemesis.release(target);
        }
    }

    private static void killAndHold(final Nemesis nemesis, final MemoryNodeKills kills, final Role target,
        final long holdMs)
    {
        final long start = nemesis.sinceOrigin();
        final long downMs = DOWN_MS + holdMs;
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s (process %d) for %d ms, then a restart to rejoin",
            NAME, target, target.pid(), downMs));
        target.kill();
        nemesis.sleep(downMs);
        final String before = kills.describe(target);
        final String restarted = nemesis.restart(target);
        nemesis.log("nemesis: " + target + " was " + before + "; " + restarted);
        nemesis.caused(new NemesisEvent(NAME, target.name(), start, nemesis.sinceOrigin(),
            "was " + before + "; " + restarted));
    }
}

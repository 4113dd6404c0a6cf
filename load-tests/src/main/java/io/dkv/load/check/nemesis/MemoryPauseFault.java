package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;
import io.dkv.meta.MetaServerConfiguration;

import java.util.List;
import java.util.Locale;

/**
 * SIGSTOP of every memory node at once, past their leases ({@link #PAUSE_MS}), then SIGCONT: a host's VMs paused
 * together, a storage-wide stall. The MetaServer declares each down in turn; back, they register again with their
 * memory and join, and no copy of any key serves to refill another from: before the store knew which replica served
 * last, keys stayed unsettled for ever at two copies. Struck only while every memory node is live and no change runs
 * ({@link MemoryNodeKills}); it holds them all, so it overlaps no other fault.
 */
public final class MemoryPauseFault extends FaultKind
{
    static final String NAME = "pause-memory";

    /** Past a lease, and a few of the MetaServer's checks, so that every memory node is declared down. */
    public static final long PAUSE_MS = MetaServerConfiguration.LEASE_MS_DEFAULT + 3_000;

    MemoryPauseFault()
    {
        super(NAME, Trait.READS_MEMBERSHIP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        if (!nemesis.mayStrikeEveryMemoryNode(NAME))
        {
            return;
        }
        // all of them at once, as no one-at-a-time memory-node fault may: taken as other roles
        final List<Role> taken = nemesis.takeAll(NAME, nemesis.targets().memoryKills().memoryNodes());
        if (taken == null)
        {
            return;
        }
        try
        {
            pauseAll(nemesis, taken, PAUSE_MS + strike.holdMs());
        }
        finally
        {
            taken.forEach(nemesis::release);
        }
    }

    private static void pauseAll(final Nemesis nemesis, final List<Role> nodes, final long holdMs)
    {
        final long start = nemesis.sinceOrigin();
        final StringBuilder which = new StringBuilder();
        for (final Role node : nodes)
        {
            which.append(which.isEmpty() ? "" : ", ").append(node).append(" (process ").append(node.pid()).append(')');
        }
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s for %d ms", NAME, which, holdMs));
        nodes.forEach(Role::pause);
        nemesis.sleep(holdMs);
        nodes.forEach(Role::resume);
        nemesis.caused(new NemesisEvent(NAME, nodes.size() + " memory nodes", start, nemesis.sinceOrigin(),
            "every memory node paused at once"));
    }
}

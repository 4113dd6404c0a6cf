package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.Role;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * SIGKILL of every memory node at once (a rack's power, a rolling restart gone wrong): every in-memory copy of every
 * key lost together. Each is then started again on its data directory, in an order the strike draws, either within
 * its lease (it comes back as a new incarnation while still listed live) or after it (declared down first): each loads
 * its keys from its disk, comes back joining, and the copy of the one that served last settles the others
 * (kv-memory-node/README.md, "Restarting from disk"). The clients write under durability sync, so nothing they were
 * told is written may be lost. Before, every node came back marked memory-lost and no key could settle. Struck only
 * while every memory node is live and no change runs ({@link MemoryNodeKills}); it holds them all.
 */
final class KillAllMemoryFault extends FaultKind
{
    static final String NAME = "kill-all-memory";

    KillAllMemoryFault()
    {
        super(NAME, Trait.READS_MEMBERSHIP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        if (!nemesis.mayStrikeEveryMemoryNode(NAME))
        {
            return;
        }
        final MemoryNodeKills kills = nemesis.targets().memoryKills();
        final List<Role> taken = nemesis.takeAll(NAME, kills.memoryNodes());
        if (taken == null)
        {
            return;
        }
        try
        {
            // the strike's own draw: past the lease every other time, and the order of the restarts
            final boolean pastLease = (strike.pick() & 1) == 0;
            final List<Role> order = new ArrayList<>(taken);
            Collections.shuffle(order, new Random(strike.pick()));
            killAll(nemesis, kills, taken, order, (pastLease ? KillMemoryFault.DOWN_MS : 0) + strike.holdMs());
        }
        finally
        {
            taken.forEach(nemesis::release);
        }
    }

    private static void killAll(final Nemesis nemesis, final MemoryNodeKills kills, final List<Role> nodes,
        final List<Role> order, final long downMs)
    {
        final long start = nemesis.sinceOrigin();
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s for %d ms, then restarts in the order %s", NAME,
            processes(nodes), downMs, order));
        nodes.forEach(Role::kill);
        final long lossesUntil = nemesis.sinceOrigin();
        nemesis.sleep(downMs);
        final StringBuilder restarts = new StringBuilder();
        for (final Role node : order)
        {
            final String before = kills.describe(node);
            restarts.append(restarts.isEmpty() ? "" : "; ").append(node).append(" was ").append(before).append(", ")
                .append(nemesis.restart(node));
        }
        nemesis.log("nemesis: " + NAME + ": " + restarts);
        nemesis.caused(new NemesisEvent(NAME, nodes.size() + " memory nodes", start, nemesis.sinceOrigin(),
            "every memory node killed at once: " + restarts, start, lossesUntil));
    }

    static String processes(final List<Role> nodes)
    {
        final StringBuilder which = new StringBuilder();
        for (final Role node : nodes)
        {
            which.append(which.isEmpty() ? "" : ", ").append(node).append(" (process ").append(node.pid()).append(')');
        }
        return which.toString();
    }
}

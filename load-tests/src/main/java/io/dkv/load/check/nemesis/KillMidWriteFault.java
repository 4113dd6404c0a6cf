package io.dkv.load.check.nemesis;

import io.dkv.checker.history.HistoryJson;
import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * SIGKILL aimed at a write in flight: the client process that has a write or compare-and-set (or a queue's enqueue
 * or blocking dequeue) invoked and not completed ({@link WritesInFlight}), or the driver or a compute node it goes
 * through, killed at once and restarted after the hold. Skipped, saying so, when no write is in flight within
 * {@link #SEARCH_MS}.
 */
final class KillMidWriteFault extends FaultKind
{
    static final String NAME = "kill-mid-write";

    /** How long it looks for a write in flight before it gives up its turn. */
    static final long SEARCH_MS = 3_000;

    KillMidWriteFault()
    {
        super(NAME, Trait.MAY_OVERLAP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final Random random = nemesis.random();
        final WritesInFlight writes = nemesis.targets().writes();
        final List<Role> clients = new ArrayList<>();
        final List<Role> writePath = new ArrayList<>();
        for (final Role role : strike.roles())
        {
            if (role.name().startsWith(CheckCluster.CLIENT) && role.isAlive())
            {
                // a client killed by another fault left its writes open in its history, cut already
                clients.add(role);
            }
            else if (role.name().equals(CheckCluster.DRIVER) || role.name().startsWith(CheckCluster.COMPUTE_NODE))
            {
                writePath.add(role);
            }
        }
        final long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEARCH_MS);
        WritesInFlight.InFlight found = null;
        while (nemesis.running() && found == null && System.nanoTime() < giveUp)
        {
            Collections.shuffle(clients, random);
            found = writes == null ? null : writes.find(clients);
            if (found == null)
            {
                Nemesis.pause(1);
            }
        }
        if (found == null)
        {
            nemesis.log("nemesis: " + NAME + " skipped: no client had a write in flight within " + SEARCH_MS + " ms");
            return;
        }
        final Role target = writePath.isEmpty() || random.nextBoolean() ? found.client() :
            writePath.get(random.nextInt(writePath.size()));
        final String why = found.client() + " had " + found.write().f() + " " +
            (found.write().key() == null ? "" : found.write().key() + " ") +
            HistoryJson.valueText(found.write().value()) + " in flight (process " + found.write().process() + ")";
        KillFault.kill(nemesis, NAME, target, strike.holdMs(), why);
    }
}

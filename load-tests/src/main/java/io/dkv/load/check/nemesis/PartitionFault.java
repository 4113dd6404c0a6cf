package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.TestHosts;

import java.util.List;
import java.util.Locale;

/**
 * The test hosts cut in two random groups that cannot reach each other, for the hold.
 */
class PartitionFault extends NetworkFault
{
    static final String NAME = "partition";

    PartitionFault()
    {
        this(NAME);
    }

    PartitionFault(final String name)
    {
        super(name);
    }

    /** @return true when only the first side's packets to the second are dropped. */
    boolean oneWay()
    {
        return false;
    }

    final void strike(final Nemesis nemesis, final Strike strike)
    {
        final TestHosts hosts = nemesis.targets().hosts();
        final boolean oneWay = oneWay();
        final long start = nemesis.sinceOrigin();
        final TestHosts.Partition partition = hosts.partition(nemesis.random(), oneWay);
        final String sides = side(nemesis, partition.sideA()) + (oneWay ? " -> " : " | ") +
            side(nemesis, partition.sideB());
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s %s for %d ms%s", name(), sides, strike.holdMs(),
            oneWay ? " (the first side's packets to the second dropped, the second's still arrive)" : ""));
        nemesis.sleep(strike.holdMs());
        hosts.heal(partition);
        nemesis.caused(new NemesisEvent(name(), sides, start, nemesis.sinceOrigin(), ""));
    }

    /** @return the names of what runs on the hosts of one side, for the log. */
    private static String side(final Nemesis nemesis, final List<Integer> side)
    {
        final List<String> hostNames = nemesis.targets().hostNames();
        final StringBuilder names = new StringBuilder("{");
        for (final int host : side)
        {
            names.append(names.length() == 1 ? "" : ", ").append(hostNames.get(host));
        }
        return names.append('}').toString();
    }
}

package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.TestHosts;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The test hosts cut and healed again and again for the hold, each time between other groups, each cut and each heal
 * lasting {@link #FLAP_MS} to twice that: connections that just came back are cut again before they settle. A flap
 * cuts at least {@link #MIN_CUTS} times, however long the cuts themselves take (each is a route per pair of hosts,
 * set by a process of its own: seconds on a loaded machine), unless the nemesis stops first: one cut is a partition.
 */
public final class FlappingPartitionFault extends NetworkFault
{
    static final String NAME = "flapping-partition";

    /** How long a flapping partition stays cut, or healed, at least; as long again at most. */
    public static final long FLAP_MS = 150;
    /** The cuts a flap makes at least, its hold past or not. */
    public static final int MIN_CUTS = 2;

    FlappingPartitionFault()
    {
        super(NAME);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final TestHosts hosts = nemesis.targets().hosts();
        final long holdMs = strike.holdMs();
        final long start = nemesis.sinceOrigin();
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(holdMs);
        nemesis.log(String.format(Locale.ROOT, "nemesis: %s for %d ms, cut and healed every %d-%d ms", NAME, holdMs,
            FLAP_MS, 2 * FLAP_MS));
        int cuts = 0;
        boolean stopped = false;
        while (!stopped && (cuts < MIN_CUTS || System.nanoTime() < end))
        {
            final TestHosts.Partition partition = hosts.partition(nemesis.random(), false);
            cuts++;
            stopped = !nemesis.sleep(FLAP_MS + nemesis.random().nextLong(FLAP_MS));
            hosts.heal(partition);
            stopped = stopped || !nemesis.sleep(FLAP_MS + nemesis.random().nextLong(FLAP_MS));
        }
        nemesis.caused(new NemesisEvent(NAME, "all test hosts", start, nemesis.sinceOrigin(), cuts + " cuts"));
    }
}

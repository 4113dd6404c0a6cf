package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import io.dkv.meta.MetaServerConfiguration;
import io.dkv.raas.meta.MetaDirectoryConfiguration;

/**
 * SIGSTOP of the MetaServer for longer than a lease and than the window in which it takes a frame as fresh
 * ({@link #PAUSE_MS}), then SIGCONT: a VM paused, a long GC. The renewals sent meanwhile wait for it in the transport,
 * and those still inside the window are heard on resume (a pause of a lease and 3 s showed nothing); older ones are
 * refused as stale, and before the MetaServer told its own stall from silent nodes it then declared every memory
 * node down at once, and at two copies no copy could refill another: keys stayed unsettled for ever (a 36 s pause left
 * the store UNRECOVERED; with the stall check it recovers).
 */
public final class MetaPauseFault extends FaultKind
{
    static final String NAME = "pause-meta";

    /** Past the MetaServer's lease and its frames' freshness window, by a second. */
    public static final long PAUSE_MS =
        MetaServerConfiguration.LEASE_MS_DEFAULT + MetaDirectoryConfiguration.AUTH_WINDOW_MS_DEFAULT + 1_000;

    MetaPauseFault()
    {
        super(NAME, Trait.MAY_OVERLAP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        for (final Role role : strike.roles())
        {
            if (role.name().equals(CheckCluster.META_SERVER))
            {
                PauseFault.pause(nemesis, NAME, role, PAUSE_MS);
                return;
            }
        }
        nemesis.log("nemesis: " + NAME + " skipped: the cluster runs no MetaServer role");
    }
}

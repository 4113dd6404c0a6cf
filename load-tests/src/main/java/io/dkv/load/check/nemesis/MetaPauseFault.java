package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import io.dkv.meta.MetaServerConfiguration;

/**
 * SIGSTOP of the MetaServer for longer than a lease ({@link #PAUSE_MS}), then SIGCONT: a VM paused, a long GC. It
 * hears no renewal meanwhile; before it told its own stall from silent nodes, it declared every memory node down at
 * once on resume, and at two copies no copy could refill another: keys stayed unsettled for ever.
 */
public final class MetaPauseFault extends FaultKind
{
    static final String NAME = "pause-meta";

    /** Past the MetaServer's lease by as much again as a few of its checks. */
    public static final long PAUSE_MS = MetaServerConfiguration.LEASE_MS_DEFAULT + 3_000;

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

package io.dkv.load.check.nemesis;

import io.dkv.load.check.harness.CheckCluster;
import io.dkv.load.check.harness.Role;
import io.dkv.memory.MemoryNodeConfiguration;

import java.util.ArrayList;
import java.util.List;

/**
 * A pause of a client process, the driver or a compute node for longer than the memory nodes' grace period
 * ({@link #PAUSE_MS}), with whatever it had in flight: the store must fence what it sends when it resumes.
 */
public final class LongPauseFault extends FaultKind
{
    static final String NAME = "long-pause";

    /**
     * How long it stops its target: past a memory node's grace period, so that a CAS it had in flight may find the
     * block its word named reused (client/README.md, "Operations that outlast the grace period").
     */
    public static final long PAUSE_MS = MemoryNodeConfiguration.GRACE_MS_DEFAULT + 5_000;

    LongPauseFault()
    {
        super(NAME, Trait.MAY_OVERLAP);
    }

    void strike(final Nemesis nemesis, final Strike strike)
    {
        final List<Role> clientSide = clientSide(strike.roles());
        final int pick = strike.pick();
        if (pick >= clientSide.size() && !strike.scaled().isEmpty())
        {
            PauseFault.pause(nemesis, strike.scaled().get(pick % strike.scaled().size()), PAUSE_MS);
        }
        else
        {
            PauseFault.pause(nemesis, NAME, clientSide.get(pick % clientSide.size()), PAUSE_MS);
        }
    }

    /**
     * @return the roles that send requests to the memory nodes, those a long pause stops: the clients, the driver and
     * the compute nodes, not the MetaServer or the memory nodes (whose CPUs serve no one-sided request).
     */
    private static List<Role> clientSide(final List<Role> roles)
    {
        final List<Role> clientSide = new ArrayList<>();
        for (final Role role : roles)
        {
            if (!role.name().equals(CheckCluster.META_SERVER) && !role.name().startsWith(CheckCluster.MEMORY_NODE))
            {
                clientSide.add(role);
            }
        }
        return clientSide;
    }
}

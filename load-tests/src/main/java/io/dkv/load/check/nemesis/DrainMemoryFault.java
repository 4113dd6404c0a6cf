package io.dkv.load.check.nemesis;

import java.util.List;

/**
 * {@code memory-node --drain} for a member, which moves its keys to the others; the node is stopped once it has left,
 * and never started again. A drain never leaves fewer members than copies of each key, nor none.
 */
final class DrainMemoryFault extends MemoryTierFault
{
    static final String NAME = "drain-memory";

    DrainMemoryFault()
    {
        super(NAME);
    }

    String refusal(final List<FaultKind> asked, final ClusterShape cluster)
    {
        if (FaultKinds.asks(asked, AddMemoryFault.NAME) || cluster.memoryNodes() > cluster.replicas())
        {
            return null;
        }
        return "nemesis '" + NAME + "' needs more memory nodes than copies of each key (--memory-nodes " +
            cluster.memoryNodes() + ", --replicas " + cluster.replicas() + "), or '" + AddMemoryFault.NAME + "' " +
            "beside it: a drain never leaves fewer members than copies, nor none";
    }

    NemesisEvent change(final MemoryTierChanges tier, final int pick)
    {
        return tier.drain(pick);
    }
}

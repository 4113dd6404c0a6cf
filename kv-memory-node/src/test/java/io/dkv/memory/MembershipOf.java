package io.dkv.memory;

import io.dkv.raas.Directory;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.StaticDirectory;

import java.util.List;
import java.util.function.Supplier;

/**
 * A cluster's directory but for the membership it answers: for a client that missed what came since (a membership
 * frozen at an epoch) or cannot read one (a supplier that throws, as a MetaServer down).
 *
 * @param cluster where the nodes and regions are.
 * @param answer  what {@link #membership()} answers.
 */
record MembershipOf(StaticDirectory cluster, Supplier<Membership> answer) implements Directory
{
    public NodeRecord node(final long nodeId)
    {
        return cluster.node(nodeId);
    }

    public List<NodeRecord> nodes(final int role)
    {
        return cluster.nodes(role);
    }

    public Membership membership()
    {
        return answer.get();
    }

    public RemoteRegion region(final String name)
    {
        return cluster.region(name);
    }

    public void register(final NodeRecord self)
    {
        cluster.register(self);
    }

    public void publish(final RemoteRegion region)
    {
        cluster.publish(region);
    }

    public void withdraw(final String name)
    {
        cluster.withdraw(name);
    }

    public void invalidate(final long nodeId)
    {
    }
}

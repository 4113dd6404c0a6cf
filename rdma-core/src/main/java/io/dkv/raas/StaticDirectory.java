package io.dkv.raas;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A directory held in memory and shared by the drivers that use it: for tests, and for
 * deployments whose nodes are known in advance.
 */
public final class StaticDirectory implements Directory
{
    private final Map<Long, NodeRecord> nodes = new ConcurrentHashMap<>();
    private final Map<String, RemoteRegion> regions = new ConcurrentHashMap<>();
    /** Set by {@link #membership(Membership)}; null: the memory nodes registered, each live, one copy of a key. */
    private volatile Membership membership;

    public NodeRecord node(final long nodeId)
    {
        return nodes.get(nodeId);
    }

    public RemoteRegion region(final String name)
    {
        return regions.get(name);
    }

    public void register(final NodeRecord self)
    {
        nodes.put(self.id(), self);
    }

    public void registerHosted(final NodeRecord node)
    {
        nodes.put(node.id(), node);
    }

    public void deregisterHosted(final long nodeId)
    {
        nodes.remove(nodeId);
    }

    public void publish(final RemoteRegion region)
    {
        regions.put(region.name(), region);
    }

    public List<NodeRecord> nodes(final int role)
    {
        return nodes.values().stream().filter(node -> node.role() == role).toList();
    }

    public void withdraw(final String name)
    {
        regions.remove(name);
    }

    public void invalidate(final long nodeId)
    {
    }

    public Membership membership()
    {
        final Membership set = membership;
        return set != null ? set : Directory.super.membership();
    }

    /** Keep this membership from now on, as a MetaServer would: the members, their states and the replica count. */
    public StaticDirectory membership(final Membership membership)
    {
        this.membership = membership;
        return this;
    }

    /** Forget a node entirely (it left). */
    public void remove(final long nodeId)
    {
        nodes.remove(nodeId);
    }
}

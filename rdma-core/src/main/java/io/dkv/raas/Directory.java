package io.dkv.raas;

import java.util.List;

/**
 * Where a driver learns how to reach nodes and where named regions are: the MetaServer, or a
 * fixed set given by the application.
 */
public interface Directory
{
    /**
     * Called once by the driver when it has started, before it registers itself: a directory that
     * talks to a MetaServer does so through the driver it serves.
     *
     * @param raas the driver's handle.
     */
    default void attach(final Raas raas)
    {
    }

    /** Called when the driver closes (a directory deregisters the node, stops renewing its lease). */
    default void detach()
    {
    }

    /**
     * @return the node's record, or null when no such node is known.
     */
    NodeRecord node(long nodeId);

    /**
     * @return the live nodes of a role ({@link NodeRecord#ROLE_MEMORY}, ...).
     * @throws UnsupportedOperationException when this directory cannot list its nodes.
     */
    default List<NodeRecord> nodes(final int role)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot list its nodes");
    }

    /**
     * @return the memory tier's members, their states and the replica count, read anew (a client
     * asks after a request to a memory node failed, and now and then). A directory that keeps no
     * states lists its memory nodes, each live, with one copy of each key.
     * @throws UnsupportedOperationException when this directory cannot list its nodes.
     */
    default Membership membership()
    {
        return Membership.allLive(0, 1, nodes(NodeRecord.ROLE_MEMORY));
    }

    /**
     * @return the region published under that name, or null.
     */
    RemoteRegion region(String name);

    /** Publish this node (or renew it). */
    void register(NodeRecord self);

    /** Publish a region under its name. */
    void publish(RemoteRegion region);

    /** Withdraw a region. */
    void withdraw(String name);

    /**
     * Forget what is cached about a node (it failed a request or changed incarnation), so that the
     * next lookup reads it anew.
     */
    void invalidate(long nodeId);
}

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
     * Begin adding a registered memory node that is no member by moving keys to it: it becomes a live member placed
     * after only, and the membership enters {@link Membership#FILL}. With no members at all it founds instead
     * (placed, no change). Asking again while that add is in FILL changes nothing.
     *
     * @return the membership after it.
     * @throws UnsupportedOperationException when this directory keeps no membership changes.
     * @throws RaasException naming the phase, node and epoch when the membership does not allow it (a change runs,
     *                       the node is a member already or not registered).
     */
    default Membership beginAdd(final long nodeId)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no membership changes");
    }

    /**
     * Begin draining a live placed member by moving its keys to the others: it is placed before only, and the
     * membership enters {@link Membership#FILL}; it leaves the membership when the change reaches
     * {@link Membership#STEADY}. Asking again while that drain is in FILL changes nothing.
     *
     * @return the membership after it.
     * @throws UnsupportedOperationException when this directory keeps no membership changes.
     * @throws RaasException naming the phase, node and epoch when the node is no live placed member, a change runs,
     *                       or it is the last member.
     */
    default Membership beginDrain(final long nodeId)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no membership changes");
    }

    /**
     * Move the change in progress from {@code expectedPhase} to the next: FILL to SWITCH to HANDOVER to CLEANUP to
     * STEADY, where members placed after only are placed and members placed before only leave. Idempotent: when the
     * membership is in the phase after {@code expectedPhase} already (an earlier call's answer was lost), nothing
     * changes and the call succeeds; a driver cannot skip a phase, since from any other phase the call is refused.
     *
     * @return the membership after it.
     * @throws UnsupportedOperationException when this directory keeps no membership changes.
     * @throws RaasException naming the phase the membership is in when it is neither {@code expectedPhase} nor the
     *                       one after it (the change was aborted, or another runs).
     */
    default Membership advanceMembership(final int expectedPhase)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no membership changes");
    }

    /**
     * Give up the change in progress, in {@link Membership#FILL} or {@link Membership#SWITCH} only: back to
     * {@link Membership#STEADY} over the before placement (members placed after only leave, members placed before
     * only are placed again).
     *
     * @return the membership after it.
     * @throws UnsupportedOperationException when this directory keeps no membership changes.
     * @throws RaasException naming the phase when no change runs or it is past SWITCH; a driver
     *                       whose abort's answer was lost finds {@link Membership#STEADY} over the before placement.
     */
    default Membership abortMembershipChange()
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " keeps no membership changes");
    }

    /**
     * @return the region published under that name, or null.
     */
    RemoteRegion region(String name);

    /** Publish this node (or renew it). */
    void register(NodeRecord self);

    /**
     * Publish a node that an application attached to this directory's driver is ({@link RaasContext#attachAs}),
     * reached at the driver's address, and keep it published (its lease renewed with the driver's own) until
     * {@link #deregisterHosted} or the driver detaches.
     *
     * @throws UnsupportedOperationException when this directory publishes no nodes but its driver's.
     */
    default void registerHosted(final NodeRecord node)
    {
        throw new UnsupportedOperationException("the directory (" + getClass().getName() + ") publishes no " +
            "attached applications' nodes");
    }

    /** Withdraw a node {@link #registerHosted} published (its application detached or died). */
    default void deregisterHosted(final long nodeId)
    {
        throw new UnsupportedOperationException("the directory (" + getClass().getName() + ") publishes no " +
            "attached applications' nodes");
    }

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

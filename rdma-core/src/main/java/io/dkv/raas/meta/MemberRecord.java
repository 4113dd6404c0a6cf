package io.dkv.raas.meta;

import io.dkv.raas.Membership;

/**
 * One member of the memory tier as the MetaServers keep it: its node id, its state, the
 * incarnation (the {@link io.dkv.raas.NodeRecord#epoch()}) it last registered with, and its
 * placement flags. The incarnation tells a stale request (a copier that refilled an earlier
 * incarnation) from a current one.
 *
 * @param nodeId      the memory node.
 * @param state       {@link Membership#LIVE}, {@link Membership#JOINING}, {@link Membership#DOWN} or
 *                    {@link Membership#LEAVING}.
 * @param incarnation the node epoch it registered with.
 * @param placement   {@link Membership#PLACED_BEFORE}, {@link Membership#PLACED_AFTER} or {@link Membership#PLACED};
 *                    {@link #REMOVED} only in a replicated change, saying the member left the membership.
 * @param leftLive    the membership epoch in which it last stopped serving, with {@link Membership#MEMORY_LOST} once
 *                    it came back as another incarnation; 0 while it serves ({@link Membership#leftLive}).
 */
public record MemberRecord(long nodeId, int state, long incarnation, int placement, long leftLive)
{
    /** Not a placement a member has: a replicated change's word that the member left the membership. */
    public static final int REMOVED = 0;

    public MemberRecord
    {
        if (nodeId == 0)
        {
            throw new IllegalArgumentException("node id 0 cannot be a member");
        }
        if (state < Membership.LIVE || state > Membership.LEAVING)
        {
            throw new IllegalArgumentException("member " + nodeId + " has no state " + state);
        }
        if (placement < REMOVED || placement > Membership.PLACED)
        {
            throw new IllegalArgumentException("member " + nodeId + " has no placement " + placement);
        }
    }

    /** A member that never stopped serving, or whose last time live is not known. */
    public MemberRecord(final long nodeId, final int state, final long incarnation, final int placement)
    {
        this(nodeId, state, incarnation, placement, 0);
    }

    /** A member placed both before and after: every member while no change runs. */
    public MemberRecord(final long nodeId, final int state, final long incarnation)
    {
        this(nodeId, state, incarnation, Membership.PLACED);
    }

    /** @return what a replicated change carries for a member that left the membership. */
    public static MemberRecord removed(final long nodeId, final int state, final long incarnation)
    {
        return new MemberRecord(nodeId, state, incarnation, REMOVED);
    }

    public boolean isRemoved()
    {
        return placement == REMOVED;
    }

    public MemberRecord withState(final int state)
    {
        return new MemberRecord(nodeId, state, incarnation, placement, leftLive);
    }

    public MemberRecord withPlacement(final int placement)
    {
        return new MemberRecord(nodeId, state, incarnation, placement, leftLive);
    }

    public MemberRecord withLeftLive(final long leftLive)
    {
        return new MemberRecord(nodeId, state, incarnation, placement, leftLive);
    }

    public String toString()
    {
        return "member " + nodeId + " " + Membership.stateName(state) + " (incarnation " + incarnation +
            (placement == Membership.PLACED ? "" : ", " + (placement == REMOVED ? "removed" :
            Membership.placementName(placement))) +
            (leftLive == 0 ? "" : ", left live in epoch " + (leftLive & ~Membership.MEMORY_LOST) +
            ((leftLive & Membership.MEMORY_LOST) != 0 ? ", memory lost since" : "")) + ")";
    }
}

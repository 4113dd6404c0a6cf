package io.dkv.raas.meta;

import io.dkv.raas.Membership;

/**
 * One member of the memory tier as the MetaServers keep it: its node id, its state and the
 * incarnation (the {@link io.dkv.raas.NodeRecord#epoch()}) it last registered with. The
 * incarnation tells a stale request (a copier that refilled an earlier incarnation) from a current one.
 *
 * @param nodeId      the memory node.
 * @param state       {@link Membership#LIVE}, {@link Membership#JOINING}, {@link Membership#DOWN} or
 *                    {@link Membership#LEAVING}.
 * @param incarnation the node epoch it registered with.
 */
public record MemberRecord(long nodeId, int state, long incarnation)
{
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
    }

    public MemberRecord withState(final int state)
    {
        return new MemberRecord(nodeId, state, incarnation);
    }

    public String toString()
    {
        return "member " + nodeId + " " + Membership.stateName(state) + " (incarnation " + incarnation + ")";
    }
}

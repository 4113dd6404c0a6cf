package io.dkv.raas.meta;

import io.dkv.raas.Membership;

import java.util.List;

/**
 * The memory tier's membership as the MetaServers keep, store, replicate and publish it: what
 * {@link Membership} says, with each member's incarnation. Whole, it is the membership (in the
 * store, the tables and a state transfer); a replicated change carries only the members it changed.
 *
 * @param epoch    bumped by every change of a member or of the replica count.
 * @param replicas copies of each key, at least 1.
 * @param members  the members, in the order they first joined.
 */
public record MembershipRecord(long epoch, int replicas, List<MemberRecord> members)
{
    public MembershipRecord
    {
        if (replicas < 1)
        {
            throw new IllegalArgumentException("a cluster keeps at least 1 copy of each key: replicas=" + replicas);
        }
        members = List.copyOf(members);
    }

    /** @return the member of that id, or null. */
    public MemberRecord member(final long nodeId)
    {
        for (final MemberRecord member : members)
        {
            if (member.nodeId() == nodeId)
            {
                return member;
            }
        }
        return null;
    }

    /** @return what placement reads: the members, their states and incarnations. */
    public Membership toMembership()
    {
        final long[] ids = new long[members.size()];
        final int[] states = new int[ids.length];
        final long[] incarnations = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            ids[i] = members.get(i).nodeId();
            states[i] = members.get(i).state();
            incarnations[i] = members.get(i).incarnation();
        }
        return new Membership(epoch, replicas, ids, states, incarnations);
    }
}

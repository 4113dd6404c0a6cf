package io.dkv.raas.meta;

import io.dkv.raas.Membership;

import java.util.List;

/**
 * The memory tier's membership as the MetaServers keep, store, replicate and publish it: what
 * {@link Membership} says, with each member's incarnation and placement and the phase of the change in
 * progress. Whole, it is the membership (in the store, the tables and a state transfer); a replicated
 * change carries only the members it changed (a member that left is {@link MemberRecord#isRemoved removed}),
 * and the phase only when it moved it ({@link #PHASE_KEPT} otherwise).
 *
 * @param epoch    bumped by every change of a member, of the replica count or of the phase.
 * @param replicas copies of each key, at least 1.
 * @param members  the members, in the order they first joined.
 * @param phase    {@link Membership#STEADY}, {@link Membership#FILL}, {@link Membership#SWITCH} or
 *                 {@link Membership#CLEANUP}; in a replicated change also {@link #PHASE_KEPT}.
 */
public record MembershipRecord(long epoch, int replicas, List<MemberRecord> members, int phase)
{
    /**
     * Not a phase: a replicated change that leaves the phase as the receiver has it. Both MetaServers expire
     * leases, so a change one makes of a member must not undo a phase the other moved meanwhile.
     */
    public static final int PHASE_KEPT = -1;

    public MembershipRecord
    {
        if (replicas < 1)
        {
            throw new IllegalArgumentException("a cluster keeps at least 1 copy of each key: replicas=" + replicas);
        }
        if (phase < PHASE_KEPT || phase > Membership.CLEANUP)
        {
            throw new IllegalArgumentException("membership of epoch " + epoch + " has no phase " + phase);
        }
        members = List.copyOf(members);
    }

    /** A membership with no change running. */
    public MembershipRecord(final long epoch, final int replicas, final List<MemberRecord> members)
    {
        this(epoch, replicas, members, Membership.STEADY);
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

    /**
     * @return what placement reads: the members, their states, incarnations and placements, and the phase.
     * @throws IllegalArgumentException when this is a change rather than a whole membership, or its placements do
     *                                  not fit its phase.
     */
    public Membership toMembership()
    {
        final long[] ids = new long[members.size()];
        final int[] states = new int[ids.length];
        final long[] incarnations = new long[ids.length];
        final int[] placements = new int[ids.length];
        final long[] leftLive = new long[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            leftLive[i] = members.get(i).leftLive();
            ids[i] = members.get(i).nodeId();
            states[i] = members.get(i).state();
            incarnations[i] = members.get(i).incarnation();
            placements[i] = members.get(i).placement();
        }
        if (phase == PHASE_KEPT)
        {
            throw new IllegalArgumentException("a replicated change of epoch " + epoch + " is no whole membership");
        }
        return new Membership(epoch, replicas, ids, states, incarnations, placements, phase, leftLive);
    }
}

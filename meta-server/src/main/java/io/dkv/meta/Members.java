package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;
import io.dkv.raas.meta.MetaTableDescriptor;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.dkv.raas.Membership.DOWN;
import static io.dkv.raas.Membership.JOINING;
import static io.dkv.raas.Membership.LIVE;

/**
 * The memory tier's membership and the rules that change it; every change bumps the membership
 * epoch. Keys are placed over the members, so a member is never dropped here: one that goes down
 * keeps its place, and only its state says whether its copies are read.
 *
 * <ul>
 *     <li>a memory node whose id is no member registers: it founds, {@link Membership#LIVE} and placed, while no
 *     membership change runs (one that runs would move its keys unfilled); {@link MetaState} lets only a founder of a
 *     store not founded yet get here ({@link Founders}); {@link MembershipChanges} says how one asking to join
 *     instead is added.</li>
 *     <li>a {@link Membership#DOWN} member registers, or a live or joining one registers as a new incarnation
 *     (it restarted within its lease): with 2 or more replicas it is {@link Membership#JOINING}, its copies to be
 *     refilled from the others before it is read; with one it is live again, since its keys have no other copy
 *     and its data directory brings them back.</li>
 *     <li>a member's lease runs out, or it deregisters: it is {@link Membership#DOWN}.</li>
 *     <li>{@link #markLive}: a joining member whose copies were refilled is live.</li>
 * </ul>
 * These keep each member's placement flags: they hold whatever phase a change is in. Each also keeps when the member
 * last stopped serving ({@link MemberRecord#leftLive}): the epoch of the change that took a live member down, or
 * joining as another incarnation, marked {@link Membership#MEMORY_LOST} once it came back as another incarnation, and
 * 0 once live again. When every copy of a key went down, that order says which copy holds every write acknowledged:
 * the one that stopped serving last, if it kept its memory.
 *
 * <p>A change replicated from the peer MetaServer is applied member by member ({@link #apply}), not
 * as a whole list: both servers expire leases, so each may send a change the other made too, and
 * changes to different members must not undo each other. Only a change that moves the phase moves
 * placements and removes members; the others carry states and incarnations. Not thread-safe:
 * {@link MetaState} serialises.
 */
final class Members
{
    private final Map<Long, MemberRecord> members = new LinkedHashMap<>();
    private long epoch;
    private int replicas;
    private int phase;

    Members(final MembershipRecord stored)
    {
        install(stored);
    }

    MembershipRecord record()
    {
        return new MembershipRecord(epoch, replicas, new ArrayList<>(members.values()), phase);
    }

    /**
     * @return a change carrying the member as it is now, with the epoch and replica count, leaving the phase: what
     * the peer applies.
     */
    MembershipRecord change(final MemberRecord member)
    {
        return new MembershipRecord(epoch, replicas, member == null ? List.of() : List.of(member),
            MembershipRecord.PHASE_KEPT);
    }

    /** @return a change that moved the phase to the one now, with the members it touched (removed ones too). */
    MembershipRecord phaseChange(final List<MemberRecord> touched)
    {
        return new MembershipRecord(epoch, replicas, touched, phase);
    }

    Collection<MemberRecord> all()
    {
        return members.values();
    }

    int size()
    {
        return members.size();
    }

    int phase()
    {
        return phase;
    }

    MemberRecord member(final long nodeId)
    {
        return members.get(nodeId);
    }

    long epoch()
    {
        return epoch;
    }

    int replicas()
    {
        return replicas;
    }

    /**
     * A memory node registered as this incarnation.
     *
     * @return the member as it is now when it changed, else null.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when a new member finds every member
     *                          slot taken.
     */
    MemberRecord registered(final long nodeId, final long incarnation)
    {
        return registered(nodeId, incarnation, false);
    }

    /**
     * A memory node registered as this incarnation.
     *
     * @param restored true when its memory is what its data directory held ({@code FLAG_RESTORED}): a member back as
     *                 another incarnation so is not marked {@link Membership#MEMORY_LOST} by this return.
     * @return the member as it is now when it changed, else null.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when a new member finds every member
     *                          slot taken.
     */
    MemberRecord registered(final long nodeId, final long incarnation, final boolean restored)
    {
        final MemberRecord existing = members.get(nodeId);
        final MemberRecord now;
        if (existing == null)
        {
            if (phase != Membership.STEADY)
            {
                return null;
            }
            requireRoom(nodeId);
            now = new MemberRecord(nodeId, LIVE, incarnation);
        }
        else if (existing.state() == DOWN || existing.incarnation() != incarnation)
        {
            final int state = replicas >= 2 ? JOINING : LIVE;
            now = new MemberRecord(nodeId, state, incarnation, existing.placement(),
                state == LIVE ? 0 : leftLiveOnReturn(existing, incarnation, restored));
        }
        else
        {
            return null;
        }
        return put(now);
    }

    /**
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when every member slot is taken.
     */
    void requireRoom(final long nodeId)
    {
        if (members.size() >= MetaTableDescriptor.MEMBER_SLOTS)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_TABLE_FULL,
                "memory node " + nodeId + " cannot join: the membership holds its most members, " +
                MetaTableDescriptor.MEMBER_SLOTS);
        }
    }

    /**
     * The member's lease ran out or it deregistered.
     *
     * @return the member as it is now when it changed, else null (no member, or down already).
     */
    MemberRecord down(final long nodeId)
    {
        final MemberRecord existing = members.get(nodeId);
        if (existing == null || existing.state() == DOWN)
        {
            return null;
        }
        // a joining member was not live: it keeps when it last was
        return put(existing.withState(DOWN)
            .withLeftLive(existing.state() == JOINING ? existing.leftLive() : epoch + 1));
    }

    /**
     * @return when a member back (registered again, or as another incarnation) last left live: in this change if it
     * was serving until now, else as before; marked {@link Membership#MEMORY_LOST} when it is another incarnation,
     * whose memory is not the one it served with, unless it is restored from its disk. A mark an earlier return made
     * stays: a restored incarnation's disk is then that of an incarnation that never served.
     */
    private long leftLiveOnReturn(final MemberRecord existing, final long incarnation, final boolean restored)
    {
        final boolean serving = existing.state() == LIVE || existing.state() == Membership.LEAVING;
        final long left = serving ? epoch + 1 : existing.leftLive();
        return existing.incarnation() != incarnation && !restored ? left | Membership.MEMORY_LOST : left;
    }

    /**
     * A joining member's copies were refilled. Asking again once it is live as that incarnation changes nothing,
     * so a copier whose reply was lost may ask again.
     *
     * @return the member as it is now when it changed, else null.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the member's state and both
     *                          incarnations when it is not joining (or live) as that incarnation.
     */
    MemberRecord markLive(final long nodeId, final long incarnation)
    {
        final MemberRecord existing = members.get(nodeId);
        if (existing == null)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT,
                "node " + nodeId + " is no member of the memory tier; it cannot be marked live (incarnation " +
                incarnation + ")");
        }
        final boolean sameIncarnation = existing.incarnation() == incarnation;
        if (sameIncarnation && existing.state() == LIVE)
        {
            return null;
        }
        if (!sameIncarnation || existing.state() != JOINING)
        {
            throw new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT,
                "node " + nodeId + " is " + Membership.stateName(existing.state()) + " as incarnation " +
                existing.incarnation() + "; it can be marked live only while joining, and as that incarnation, " +
                "not " + incarnation);
        }
        return put(existing.withState(LIVE).withLeftLive(0));
    }

    /** @return true when the replica count changed. */
    boolean replicas(final int replicas)
    {
        if (replicas < 1)
        {
            throw new IllegalArgumentException("a cluster keeps at least 1 copy of each key: replicas=" + replicas);
        }
        if (replicas == this.replicas)
        {
            return false;
        }
        this.replicas = replicas;
        epoch++;
        return true;
    }

    /**
     * Apply what the peer changed: its members as it sent them, and its replica count. A change that moved the
     * phase is taken whole for the members it names (their placements, and those it removed); one that did not
     * moves states and incarnations only, and adds no member placed on one side only, so a change the peer made of
     * a member before it saw a phase move here does not undo the move.
     *
     * @return true when anything here changed; the epoch then moves past both this one and the peer's.
     */
    boolean apply(final MembershipRecord change)
    {
        final boolean movesPhase = change.phase() != MembershipRecord.PHASE_KEPT;
        boolean changed = false;
        for (final MemberRecord member : change.members())
        {
            final MemberRecord existing = members.get(member.nodeId());
            final MemberRecord now;
            if (movesPhase)
            {
                now = member.isRemoved() ? null : member;
            }
            else if (existing != null)
            {
                now = member.isRemoved() ? existing : member.withPlacement(existing.placement());
            }
            else
            {
                now = member.placement() == Membership.PLACED ? member : null;
            }
            if (now == null ? existing != null : !now.equals(existing))
            {
                if (now == null)
                {
                    members.remove(member.nodeId());
                }
                else
                {
                    members.put(member.nodeId(), now);
                }
                changed = true;
            }
        }
        if (movesPhase && change.phase() != phase)
        {
            phase = change.phase();
            changed = true;
        }
        if (change.replicas() != replicas)
        {
            replicas = change.replicas();
            changed = true;
        }
        if (changed)
        {
            epoch = Math.max(epoch + 1, change.epoch());
        }
        return changed;
    }

    /** Take the peer's membership whole (a state transfer); the epoch only moves forward. */
    void adopt(final MembershipRecord whole)
    {
        final long before = epoch;
        install(whole);
        epoch = Math.max(before + 1, whole.epoch());
    }

    /** Take this membership whole, as the store holds it. */
    void install(final MembershipRecord whole)
    {
        members.clear();
        for (final MemberRecord member : whole.members())
        {
            members.put(member.nodeId(), member);
        }
        epoch = whole.epoch();
        replicas = whole.replicas();
        phase = whole.phase() == MembershipRecord.PHASE_KEPT ? Membership.STEADY : whole.phase();
    }

    /** Set a member as one step of a change; {@link #bump} ends the change. */
    void set(final MemberRecord member)
    {
        members.put(member.nodeId(), member);
    }

    /** Drop a member as one step of a change; {@link #bump} ends the change. */
    void remove(final long nodeId)
    {
        members.remove(nodeId);
    }

    /** Set the phase as one step of a change; {@link #bump} ends the change. */
    void phase(final int phase)
    {
        this.phase = phase;
    }

    /** End a change made in steps: one epoch for all of them. */
    void bump()
    {
        epoch++;
    }

    private MemberRecord put(final MemberRecord member)
    {
        members.put(member.nodeId(), member);
        epoch++;
        return member;
    }
}

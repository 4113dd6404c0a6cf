package io.dkv.meta;

import io.dkv.raas.Membership;
import io.dkv.raas.meta.MemberRecord;
import io.dkv.raas.meta.MembershipRecord;
import io.dkv.raas.meta.MetaRpcDescriptor;
import io.dkv.raas.meta.MetaRpcException;

import java.util.ArrayList;
import java.util.List;

import static io.dkv.raas.Membership.CLEANUP;
import static io.dkv.raas.Membership.HANDOVER;
import static io.dkv.raas.Membership.FILL;
import static io.dkv.raas.Membership.LIVE;
import static io.dkv.raas.Membership.PLACED;
import static io.dkv.raas.Membership.PLACED_AFTER;
import static io.dkv.raas.Membership.PLACED_BEFORE;
import static io.dkv.raas.Membership.STEADY;
import static io.dkv.raas.Membership.SWITCH;

/**
 * The rules of a membership change that moves keys (client/README.md, "Membership change"): a node
 * added is placed after only, a member drained before only, and the phase goes FILL, SWITCH,
 * HANDOVER, CLEANUP, STEADY, each step a new epoch. One change runs at a time.
 *
 * <ul>
 *     <li>{@link #add}: a registered node that is no member enters: live, placed after only, FILL. With no
 *     members at all, or as a founder of a store not founded yet ({@link Founders}), it founds instead (live,
 *     placed), since no keys exist to move.</li>
 *     <li>{@link #drain}: a live placed member, not the last, leaves: placed before only, FILL.</li>
 *     <li>{@link #advance}: to the next phase; at STEADY members placed after only are placed, members placed
 *     before only leave the membership.</li>
 *     <li>{@link #abort}: in FILL or SWITCH, back to STEADY over the before placement; members placed after only
 *     leave, members placed before only are placed again. From HANDOVER on writes are decided by the after
 *     placement, and in CLEANUP readers read it too, so the change can only complete.</li>
 *     <li>{@link #lost}: an added member that went down during FILL or SWITCH aborts the change; a drained
 *     member going down does not (its keys have other copies, or come back from its disk).</li>
 * </ul>
 *
 * <p>Asking again for what is already so (the same add or drain in FILL, an advance past a phase already
 * left) changes nothing and is no error, so a driver whose answer was lost asks again safely; asking for
 * anything else the membership does not allow throws, naming the phase, the node and the epoch.
 * Each method returns what the peer MetaServer applies to make the same change, or null when nothing changed.
 * Not thread-safe: {@link MetaState} serialises.
 */
final class MembershipChanges
{
    private final Members members;

    MembershipChanges(final Members members)
    {
        this.members = members;
    }

    /**
     * Add a registered memory node by moving keys to it.
     *
     * @param nodeId      the node.
     * @param incarnation its node epoch.
     * @return the change, or null when the node is being added already.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} when it is a member already or another
     *                          change runs, {@link MetaRpcDescriptor#STATUS_TABLE_FULL} when no member slot is free.
     */
    MembershipRecord add(final long nodeId, final long incarnation)
    {
        return add(nodeId, incarnation, false);
    }

    /**
     * Add a registered memory node: by moving keys to it, or as a founder of a store not founded yet.
     *
     * @param founds true when the node may found the store ({@link Founders#mayFound}): it enters live and placed,
     *               no keys moved, as when it registered without asking to join.
     * @see #add(long, long)
     */
    MembershipRecord add(final long nodeId, final long incarnation, final boolean founds)
    {
        final MemberRecord existing = members.member(nodeId);
        if (existing != null)
        {
            if (members.phase() == FILL && existing.placement() == PLACED_AFTER)
            {
                return null;
            }
            throw conflict("node " + nodeId + " cannot be added: it is a member already, " +
                Membership.stateName(existing.state()) + " and " + Membership.placementName(existing.placement()));
        }
        requireSteady("node " + nodeId + " cannot be added");
        members.requireRoom(nodeId);
        if (founds || members.size() == 0)
        {
            final MemberRecord founder = new MemberRecord(nodeId, LIVE, incarnation, PLACED);
            members.set(founder);
            members.bump();
            return members.change(founder);
        }
        final MemberRecord added = new MemberRecord(nodeId, LIVE, incarnation, PLACED_AFTER);
        members.set(added);
        return move(FILL, List.of(added));
    }

    /**
     * Drain a member: move its keys to the others, then drop it.
     *
     * @return the change, or null when the member is being drained already.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} when it is no live placed member,
     *                          another change runs, or it is the last member.
     */
    MembershipRecord drain(final long nodeId)
    {
        final MemberRecord existing = members.member(nodeId);
        if (existing == null)
        {
            throw conflict("node " + nodeId + " cannot be drained: it is no member");
        }
        if (members.phase() == FILL && existing.placement() == PLACED_BEFORE)
        {
            return null;
        }
        requireSteady("node " + nodeId + " cannot be drained");
        if (existing.state() != LIVE)
        {
            throw conflict("node " + nodeId + " cannot be drained: it is " + Membership.stateName(existing.state()) +
                " (incarnation " + existing.incarnation() + "); only a live member's keys can be copied from it");
        }
        if (members.size() == 1)
        {
            throw conflict("node " + nodeId + " cannot be drained: it is the last member, its keys have nowhere to go");
        }
        final MemberRecord drained = existing.withPlacement(PLACED_BEFORE);
        members.set(drained);
        return move(FILL, List.of(drained));
    }

    /**
     * Move to the phase after {@code expectedPhase}.
     *
     * @return the change, or null when the membership is in the phase after it already.
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the phase it is in when that is
     *                          neither the one expected nor the one after it, or when no phase follows the expected.
     */
    MembershipRecord advance(final int expectedPhase)
    {
        if (expectedPhase < FILL || expectedPhase > CLEANUP)
        {
            throw conflict("a change advances from fill, switch, handover or cleanup, not from " +
                Membership.phaseName(expectedPhase));
        }
        final int next = expectedPhase == CLEANUP ? STEADY : expectedPhase + 1;
        final int phase = members.phase();
        if (phase == next)
        {
            return null;
        }
        if (phase != expectedPhase)
        {
            throw conflict("cannot advance from " + Membership.phaseName(expectedPhase) + ": the membership is in " +
                Membership.phaseName(phase));
        }
        if (next != STEADY)
        {
            return move(next, List.of());
        }
        final List<MemberRecord> touched = new ArrayList<>();
        for (final MemberRecord member : List.copyOf(members.all()))
        {
            if (member.placement() == PLACED_AFTER)
            {
                touched.add(placed(member));
            }
            else if (member.placement() == PLACED_BEFORE)
            {
                touched.add(removed(member));
            }
        }
        return move(STEADY, touched);
    }

    /**
     * Give the change up: back to STEADY over the before placement.
     *
     * @throws MetaRpcException with {@link MetaRpcDescriptor#STATUS_CONFLICT} naming the phase when no change runs or
     *                          it is in HANDOVER or CLEANUP.
     */
    MembershipRecord abort()
    {
        final int phase = members.phase();
        if (phase != FILL && phase != SWITCH)
        {
            throw conflict("no change to abort: the membership is in " + Membership.phaseName(phase) +
                (phase == HANDOVER || phase == CLEANUP ? ", where writes are decided by the after placement; " +
                "advance it to steady" : ""));
        }
        final List<MemberRecord> touched = new ArrayList<>();
        for (final MemberRecord member : List.copyOf(members.all()))
        {
            if (member.placement() == PLACED_AFTER)
            {
                touched.add(removed(member));
            }
            else if (member.placement() == PLACED_BEFORE)
            {
                touched.add(placed(member));
            }
        }
        return move(STEADY, touched);
    }

    /**
     * A member went down (its lease ran out, or it deregistered).
     *
     * @return the abort's change when it was being added and the change had not reached HANDOVER, else null.
     */
    MembershipRecord lost(final long nodeId)
    {
        final MemberRecord member = members.member(nodeId);
        final int phase = members.phase();
        if (member == null || member.placement() != PLACED_AFTER || (phase != FILL && phase != SWITCH))
        {
            return null;
        }
        return abort();
    }

    /** @return a description of the change running, for a refusal: the phase and the members moving. */
    String describe()
    {
        final StringBuilder text = new StringBuilder(Membership.phaseName(members.phase()));
        for (final MemberRecord member : members.all())
        {
            if (member.placement() == PLACED_AFTER)
            {
                text.append(", adding ").append(member.nodeId());
            }
            else if (member.placement() == PLACED_BEFORE)
            {
                text.append(", draining ").append(member.nodeId());
            }
        }
        return text.toString();
    }

    private void requireSteady(final String what)
    {
        if (members.phase() != STEADY)
        {
            throw conflict(what + ": a membership change runs (" + describe() + ")");
        }
    }

    private MemberRecord placed(final MemberRecord member)
    {
        final MemberRecord now = member.withPlacement(PLACED);
        members.set(now);
        return now;
    }

    private MemberRecord removed(final MemberRecord member)
    {
        members.remove(member.nodeId());
        return MemberRecord.removed(member.nodeId(), member.state(), member.incarnation());
    }

    private MembershipRecord move(final int phase, final List<MemberRecord> touched)
    {
        members.phase(phase);
        members.bump();
        return members.phaseChange(touched);
    }

    private MetaRpcException conflict(final String message)
    {
        return new MetaRpcException(MetaRpcDescriptor.STATUS_CONFLICT,
            message + " (membership epoch " + members.epoch() + ")");
    }
}

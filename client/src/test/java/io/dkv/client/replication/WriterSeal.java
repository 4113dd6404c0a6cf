package io.dkv.client.replication;

import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * {@link MoveVariant#WRITERS_SEAL}: a writer in SWITCH goes over the placement before while some client may still act
 * in FILL, or the driver's work in SWITCH has not begun (the HANDOVER writer: {@link MoveState#SEAL_READ}); once no
 * client acts in FILL, it may instead seal the key before it writes, as the built client's {@code ReplicaChain.sealKey}
 * does (the built client tells the two apart by its clock: client/README.md, "The handover"). Sealing, it READs the
 * member entering, then the replicas before the change from the tail to the head, one after another. A tail read
 * sealed sends it over the placement after at once. Once the replicas before agree and the member holds their write,
 * it CASes the tail from the word read to the same word sealed. A write in flight is waited out (it reads again),
 * unless its writer crashed: then it is copied onto the member from the word read there, once the replicas before
 * agree, or rolled forward one replica nearer the head once the tail, READ again, still names it (the driver's rule,
 * whose READs land in any order; these land one after another, tail first, and a roll forward without it would need a
 * third writer to go wrong, beyond this model's two). A crash in these steps posts no CAS that lands later: a late
 * seal or copy from a word still standing is the same step taken then.
 */
final class WriterSeal
{
    private WriterSeal()
    {
    }

    static void steps(final MoveState state, final int writer, final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final int[] before = state.placement().before();
        final int[] entering = state.placement().entering();
        if (entering.length > 1)
        {
            throw new IllegalStateException("the handover model seals keys with at most one member entering");
        }
        final int member = entering.length == 0 ? -1 : entering[0];
        final int tail = before[before.length - 1];
        final int aux = state.aux(writer);
        final MoveState next = state.copy();
        switch (state.pc(writer))
        {
            case MoveState.SEAL_START ->
            {
                final boolean caughtUp = MoveDriver.clientsCaughtUp(state);
                if (!caughtUp || !state.switchWork())
                {
                    final MoveState overBefore = state.copy();
                    overBefore.pc(writer, MoveState.SEAL_READ, 0);
                    steps.add(new Step<>(who + "goes over the placement before", overBefore));
                }
                if (caughtUp || state.scope.variant() == MoveVariant.WRITERS_SEAL_EARLY)
                {
                    next.pc(writer, MoveState.SEAL_READ_ENTERING, 0);
                    steps.add(new Step<>(who + "seals the key first", next));
                }
            }
            case MoveState.SEAL_READ_ENTERING ->
            {
                next.clearRead(writer);
                if (member >= 0)
                {
                    next.read(writer, member, state.slot(member));
                }
                next.pc(writer, MoveState.SEAL_READ_BEFORE, before.length - 1);
                steps.add(new Step<>(who + "READs the member entering" + (member < 0 ? ": none" :
                    ", " + MoveWriter.name(state, member) + ": " + MoveWriter.value(state.slot(member))), next));
            }
            case MoveState.SEAL_READ_BEFORE ->
            {
                final int node = before[aux];
                if (node == tail && state.sealed())
                {
                    afterSeal(next, writer);
                    steps.add(new Step<>(who + "READs the tail before, " + MoveWriter.name(state, node) +
                        ": sealed, chains over the placement after", next));
                    return;
                }
                next.read(writer, node, state.slot(node));
                next.pc(writer, aux == 0 ? MoveState.SEAL_DECIDE : MoveState.SEAL_READ_BEFORE, Math.max(aux - 1, 0));
                steps.add(new Step<>(who + "READs " + MoveWriter.name(state, node) + ": " +
                    MoveWriter.value(state.slot(node)), next));
            }
            case MoveState.SEAL_DECIDE -> decide(state, writer, before, member, tail, next, steps);
            default -> rollForward(state, writer, before, tail, next, steps);
        }
    }

    private static void decide(final MoveState state, final int writer, final int[] before, final int member,
        final int tail, final MoveState next, final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final int settled = state.read(writer, tail);
        boolean agree = true;
        for (final int replica : before)
        {
            agree &= state.read(writer, replica) == settled;
        }
        final boolean filled = member < 0 || state.read(writer, member) == settled ||
            state.scope.variant() == MoveVariant.WRITERS_SEAL_UNFILLED;
        if (agree && filled)
        {
            final boolean sealed = !state.sealed() && state.slot(tail) == settled;
            if (sealed)
            {
                next.sealed(true);
                afterSeal(next, writer);
            }
            else
            {
                next.pc(writer, MoveState.SEAL_READ_ENTERING, 0);
            }
            steps.add(new Step<>(who + "seals the tail before, " + MoveWriter.name(state, tail) + ", from " +
                MoveWriter.value(settled) + (sealed ? "" : " (failed): reads again"), next));
            return;
        }
        next.pc(writer, MoveState.SEAL_READ_ENTERING, 0);
        if (agree && MoveWriter.repairable(state, settled))
        {
            // the crashed writer never forced the member: copied from the word read there, as the fill copies
            final int expected = state.read(writer, member);
            final boolean swapped = state.slot(member) == expected;
            if (swapped)
            {
                next.copy(member, settled);
            }
            steps.add(new Step<>(who + "CASes a copy of the crashed W" + settled + "'s write onto " +
                MoveWriter.name(state, member) + " from " + MoveWriter.value(expected) + (swapped ? "" : " (failed)"),
                next));
        }
        else if (!agree && MoveWriter.repairable(state, settled))
        {
            next.pc(writer, MoveState.SEAL_TAIL_AGAIN, 0);
            steps.add(new Step<>(who + "sees the crashed W" + settled + "'s write unsettled", next));
        }
        else
        {
            steps.add(new Step<>(who + "sees a write in flight and reads again", next));
        }
    }

    /** Roll the crashed writer's write one replica nearer the head, once the tail READ again still names it. */
    private static void rollForward(final MoveState state, final int writer, final int[] before, final int tail,
        final MoveState next, final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final int settled = state.read(writer, tail);
        next.pc(writer, MoveState.SEAL_READ_ENTERING, 0);
        if (state.slot(tail) != settled || state.sealed())
        {
            steps.add(new Step<>(who + "READs the tail " + MoveWriter.name(state, tail) + " again: " +
                MoveWriter.value(state.slot(tail)) + (state.sealed() ? " sealed" : "") + ", reads all again", next));
            return;
        }
        int target = -1;
        for (int i = before.length - 2; target < 0 && i >= 0; i--)
        {
            target = state.read(writer, before[i]) != settled ? before[i] : -1;
        }
        final int expected = state.read(writer, target);
        final boolean swapped = state.slot(target) == expected;
        if (swapped)
        {
            next.copy(target, settled);
        }
        steps.add(new Step<>(who + "READs the tail again: " + MoveWriter.value(settled) + "; rolls it forward: " +
            "CASes " + MoveWriter.name(state, target) + " " + MoveWriter.value(expected) + " -> " +
            MoveWriter.value(settled) + (swapped ? "" : " (failed)"), next));
    }

    /**
     * @return whether a writer in SWITCH goes over the placement before, or is about to READ the tail to choose: the
     * driver's work in SWITCH begins only once none does (in the built client, past the time such writes end).
     */
    static boolean anyOverBefore(final MoveState state)
    {
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            final int pc = state.pc(writer);
            if (state.view(writer) == Phase.SWITCH && pc != MoveState.DONE && pc != MoveState.INVOKE &&
                (pc == MoveState.SEAL_READ || state.rule(writer) == MoveState.RULE_BEFORE))
            {
                return true;
            }
        }
        return false;
    }

    /** The key is sealed: the put goes on over the placement after, its blocks written afresh. */
    private static void afterSeal(final MoveState next, final int writer)
    {
        next.clearRead(writer);
        next.rule(writer, MoveState.RULE_AFTER);
        next.pc(writer, MoveState.WRITE_BLOCKS, 0);
    }
}

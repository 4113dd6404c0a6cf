package io.dkv.client.replication;

import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * The steps of the change's driver (the added node, or the drain command). It moves the phase on once no client acts
 * on the phase before the current one (the view lease and an operation's timeout have passed since the last move),
 * and does each phase's work only from then on. In FILL it copies the key onto each member entering its placement
 * as a refill does: READ the member's slot first, then the replicas before the change, and once they are settled
 * swap a copy in from the word read on the member, then check again; a write in flight whose writer has crashed is
 * left to SWITCH. In SWITCH, with FILL's writers gone, it READs every node and rolls the write of the tail before
 * the change forward onto every node that does not name it, members entering first, then toward the head. Under
 * {@link MoveVariant#HANDOVER}, where writers go on through SWITCH, it seals the key's tail before instead
 * ({@link #seal}).
 */
final class MoveDriver
{
    private MoveDriver()
    {
    }

    /** @return whether no client holds a view more phases behind the driver's than the scope allows. */
    static boolean clientsCaughtUp(final MoveState state)
    {
        final MoveScope scope = state.scope;
        final int oldest = scope.position(state.phase()) - scope.lag();
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            if (state.holdsView(writer) && scope.position(state.view(writer)) <= oldest)
            {
                return false;
            }
        }
        for (int reader = 0; reader < scope.readers(); reader++)
        {
            if (state.readerPc(reader) != MoveState.DONE && scope.position(state.readerView(reader)) <= oldest)
            {
                return false;
            }
        }
        return true;
    }

    static void steps(final MoveState state, final List<Step<MoveState>> steps)
    {
        if (state.phase() == Phase.STEADY_AFTER || !clientsCaughtUp(state))
        {
            return;
        }
        if (state.phase() == Phase.SWITCH && state.scope.variant().writersSeal() && !state.switchWork())
        {
            // the driver's pass waits out the writes over the placement before (in the built client, by time)
            if (!WriterSeal.anyOverBefore(state))
            {
                final MoveState begun = state.copy();
                begun.switchWork(true);
                steps.add(new Step<>("driver begins its work in SWITCH: no writer goes over the placement before",
                    begun));
            }
            return;
        }
        final boolean entering = state.placement().entering().length > 0;
        final boolean fills = state.phase() == Phase.FILL && entering;
        final boolean seals = state.phase() == Phase.SWITCH && state.scope.variant().handsOver();
        final boolean settles = state.phase() == Phase.SWITCH && !seals;
        switch (state.driverPc())
        {
            case MoveState.WORK_PENDING ->
            {
                if (fills || (seals && entering))
                {
                    readEntering(state, steps);
                }
                else if (seals)
                {
                    readBefore(state, steps);
                }
                else if (settles)
                {
                    readAll(state, steps);
                }
                else
                {
                    moveOn(state, steps);
                }
            }
            case MoveState.FILL_READ_ENTERING -> readEntering(state, steps);
            case MoveState.FILL_READ_BEFORE -> readBefore(state, steps);
            case MoveState.FILL_DECIDE ->
            {
                if (seals)
                {
                    seal(state, steps);
                }
                else
                {
                    fill(state, steps);
                }
            }
            case MoveState.SETTLE_CAS -> rollForward(state, steps);
            case MoveState.SEAL_RECHECK -> rollForwardChecked(state, steps);
            default -> moveOn(state, steps);
        }
    }

    private static void moveOn(final MoveState state, final List<Step<MoveState>> steps)
    {
        final Phase next = state.scope.next(state.phase());
        final MoveState moved = state.copy();
        moved.moveTo(next);
        steps.add(new Step<>("driver moves to " + next, moved));
    }

    private static void readEntering(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int node = state.placement().entering()[state.driverTarget()];
        final MoveState next = state.copy();
        next.driverRead(node, state.slot(node));
        next.driver(MoveState.FILL_READ_BEFORE, 0);
        steps.add(new Step<>("driver READs " + MoveWriter.name(state, node) + "'s slot: " +
            MoveWriter.value(state.slot(node)), next));
    }

    private static void readBefore(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int[] before = state.placement().before();
        final int all = (1 << before.length) - 1;
        final int aux = state.driverAux();
        for (int i = 0; i < before.length; i++)
        {
            if ((aux & (1 << i)) == 0)
            {
                final MoveState next = state.copy();
                if (state.phase() == Phase.SWITCH && state.scope.variant().handsOver() &&
                    before[i] == MoveRules.beforeTail(state) && state.sealed())
                {
                    // sealed (by a writer, under WRITERS_SEAL): the key is handed over, and the member entering may
                    // hold a write the tail after decided, which no copy may replace
                    next.clearDriverReads();
                    next.driver(MoveState.WORK_DONE, 0);
                    steps.add(new Step<>("driver READs the tail before, " + MoveWriter.name(state, before[i]) +
                        ": sealed", next));
                    continue;
                }
                next.driverRead(before[i], state.slot(before[i]));
                final int done = aux | (1 << i);
                next.driver(done == all ? MoveState.FILL_DECIDE : MoveState.FILL_READ_BEFORE, done == all ? 0 : done);
                steps.add(new Step<>("driver READs " + MoveWriter.name(state, before[i]) + "'s slot: " +
                    MoveWriter.value(state.slot(before[i])), next));
            }
        }
    }

    private static void fill(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int[] before = state.placement().before();
        final int node = state.placement().entering()[state.driverTarget()];
        final int settled = state.driverRead(before[before.length - 1]);
        boolean agree = true;
        for (final int replica : before)
        {
            agree &= state.driverRead(replica) == settled;
        }
        final MoveState next = state.copy();
        next.clearDriverReads();
        final String copy = " a copy of " + settled + " onto " + MoveWriter.name(state, node);
        if (agree && state.driverRead(node) == settled)
        {
            nextEntering(next);
            steps.add(new Step<>("driver sees " + MoveWriter.name(state, node) + " holds " + settled, next));
        }
        else if (agree)
        {
            // checked again after the swap, whether it swapped or lost to a writer's force
            final int expected = state.driverRead(node);
            final boolean swapped = state.slot(node) == expected;
            if (swapped)
            {
                next.copy(node, settled);
            }
            next.driver(MoveState.FILL_READ_ENTERING, 0);
            steps.add(new Step<>("driver CASes" + copy + " from " + MoveWriter.value(expected) +
                (swapped ? "" : " (failed)"), next));
        }
        else if (MoveWriter.repairable(state, settled))
        {
            nextEntering(next);
            steps.add(new Step<>("driver leaves the crashed W" + settled + "'s write to SWITCH", next));
        }
        else
        {
            next.driver(MoveState.FILL_READ_ENTERING, 0);
            steps.add(new Step<>("driver sees a write in flight and reads again", next));
        }
    }

    /**
     * {@link MoveVariant#HANDOVER}'s work in SWITCH, with writers going on: once the replicas before the change agree
     * and the member entering holds their write, seal the tail before by a CAS from the word read. Otherwise copy the
     * write onto the member (from the word read there), roll a crashed writer's write forward (the member first,
     * then toward the head), or read again while a write is in flight.
     */
    private static void seal(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int[] before = state.placement().before();
        final int[] entering = state.placement().entering();
        if (entering.length > 1)
        {
            throw new IllegalStateException("the handover model seals keys with at most one member entering");
        }
        final int tail = before[before.length - 1];
        final int settled = state.driverRead(tail);
        boolean agree = true;
        for (final int replica : before)
        {
            agree &= state.driverRead(replica) == settled;
        }
        final int member = entering.length == 0 ? -1 : entering[0];
        final boolean filled = member < 0 || state.driverRead(member) == settled ||
            state.scope.variant() == MoveVariant.HANDOVER_SEAL_BEFORE_FILLED;
        final MoveState next = state.copy();
        next.clearDriverReads();
        next.driver(MoveState.WORK_PENDING, 0);
        if (agree && filled)
        {
            final boolean sealed = !state.sealed() && state.slot(tail) == settled;
            if (sealed)
            {
                next.sealed(true);
                next.driver(MoveState.WORK_DONE, 0);
            }
            steps.add(new Step<>("driver seals the tail before, " + MoveWriter.name(state, tail) + ", from " +
                MoveWriter.value(settled) + (sealed ? "" : " (failed)"), next));
            return;
        }
        if (agree)
        {
            // the member lacks the write: copied from the word read there, as the fill copies
            final int expected = state.driverRead(member);
            final boolean swapped = state.slot(member) == expected;
            if (swapped)
            {
                next.copy(member, settled);
            }
            steps.add(new Step<>("driver CASes a copy of " + MoveWriter.value(settled) + " onto " +
                MoveWriter.name(state, member) + " from " + MoveWriter.value(expected) + (swapped ? "" : " (failed)"),
                next));
        }
        else if (MoveWriter.repairable(state, settled))
        {
            // READs in any order may mix states: the tail read again, unchanged, says the others were read after it
            final MoveState checking = state.copy();
            checking.driver(MoveState.SEAL_RECHECK, 0);
            steps.add(new Step<>("driver sees the crashed W" + settled + "'s write unsettled", checking));
        }
        else
        {
            steps.add(new Step<>("driver sees a write in flight and reads again", next));
        }
    }

    /** Roll the crashed writer's write forward, the member entering first, once the tail names it still. */
    private static void rollForwardChecked(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int[] before = state.placement().before();
        final int tail = before[before.length - 1];
        final int settled = state.driverRead(tail);
        final MoveState next = state.copy();
        next.clearDriverReads();
        next.driver(MoveState.WORK_PENDING, 0);
        final boolean checks = state.scope.variant() != MoveVariant.HANDOVER_ROLLS_UNCHECKED;
        if (checks && state.slot(tail) != settled || state.sealed())
        {
            steps.add(new Step<>("driver READs the tail " + MoveWriter.name(state, tail) + " again: " +
                MoveWriter.value(state.slot(tail)) + ", reads all again", next));
            return;
        }
        final int[] entering = state.placement().entering();
        int target = entering.length > 0 && state.driverRead(entering[0]) != settled ? entering[0] : -1;
        for (int i = before.length - 2; target < 0 && i >= 0; i--)
        {
            target = state.driverRead(before[i]) != settled ? before[i] : -1;
        }
        final int expected = state.driverRead(target);
        final boolean swapped = state.slot(target) == expected;
        if (swapped)
        {
            next.copy(target, settled);
        }
        steps.add(new Step<>("driver READs the tail again: " + MoveWriter.value(settled) + "; rolls it forward: " +
            "CASes " + MoveWriter.name(state, target) + " " + MoveWriter.value(expected) + " -> " +
            MoveWriter.value(settled) + (swapped ? "" : " (failed)"), next));
    }

    private static void nextEntering(final MoveState next)
    {
        final int target = next.driverTarget() + 1;
        if (target < next.placement().entering().length)
        {
            next.driverTarget(target);
            next.driver(MoveState.FILL_READ_ENTERING, 0);
        }
        else
        {
            next.driver(MoveState.WORK_DONE, 0);
        }
    }

    /** No writer runs in SWITCH once FILL's are gone, so one step stands for the READs of every node. */
    private static void readAll(final MoveState state, final List<Step<MoveState>> steps)
    {
        final MoveState next = state.copy();
        for (int node = 0; node < state.placement().nodes(); node++)
        {
            next.driverRead(node, state.slot(node));
        }
        final boolean settled = rollForwardTarget(next) < 0;
        if (settled)
        {
            next.clearDriverReads();
        }
        next.driver(settled ? MoveState.WORK_DONE : MoveState.SETTLE_CAS, 0);
        steps.add(new Step<>("driver READs every node: " + (settled ? "settled" : "not settled"), next));
    }

    /** @return the next node the settling CASes: entering members first, then the replicas before toward the head. */
    private static int rollForwardTarget(final MoveState state)
    {
        final int[] before = state.placement().before();
        final int tailWrite = state.driverRead(before[before.length - 1]);
        for (final int node : state.placement().entering())
        {
            if (state.driverRead(node) != tailWrite)
            {
                return node;
            }
        }
        for (int i = before.length - 2; i >= 0; i--)
        {
            if (state.driverRead(before[i]) != tailWrite)
            {
                return before[i];
            }
        }
        return -1;
    }

    private static void rollForward(final MoveState state, final List<Step<MoveState>> steps)
    {
        final int[] before = state.placement().before();
        final int tailWrite = state.driverRead(before[before.length - 1]);
        final int node = rollForwardTarget(state);
        final int expected = state.driverRead(node);
        final boolean swapped = state.slot(node) == expected;
        final MoveState next = state.copy();
        if (swapped)
        {
            next.copy(node, tailWrite);
            next.driverRead(node, tailWrite);
            if (rollForwardTarget(next) < 0)
            {
                next.clearDriverReads();
                next.driver(MoveState.WORK_DONE, 0);
            }
        }
        else
        {
            next.clearDriverReads();
            next.driver(MoveState.WORK_PENDING, 0);
        }
        steps.add(new Step<>("driver settles: CASes " + MoveWriter.name(state, node) + " " +
            MoveWriter.value(expected) + " -> " + MoveWriter.value(tailWrite) + (swapped ? "" : " (failed)"), next));
    }
}

package io.dkv.client.replication;

import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * A writer's steps while a key's placement moves: the put of {@link ChainProtocol}, over the replicas its view of the
 * phase names. STEADY (before) and FILL chain over the placement before the change, FILL forcing the write onto the
 * members entering it right after winning the tail; CLEANUP and STEADY (after) chain over the placement after it,
 * CLEANUP forcing the members leaving it. A writer whose view is SWITCH starts nothing until it reads the membership
 * again. A put keeps the view it started with, as a client's operation does. Forcing is the built client's loop of a
 * READ of the member's slot and a CAS from the word read, until it holds the write: one step here, the moment its
 * CAS lands (the driver's copy swaps from the word it read, and so loses to it). {@link
 * MoveVariant#FORCE_WHILE_TAIL_NAMES_IT} takes the loop's READs and CAS apart and stops once the tail names a later
 * write. Under {@link MoveVariant#HANDOVER} a writer in SWITCH does not wait: it READs the tail before the change
 * and chains over the placement its seal names ({@link MoveRules#chainsAfter}); under {@link MoveVariant#WRITERS_SEAL}
 * it seals the key first ({@link WriterSeal}).
 */
final class MoveWriter
{
    private MoveWriter()
    {
    }

    static void steps(final MoveState state, final int writer, final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final Phase view = state.view(writer);
        final int[] serving = MoveRules.serving(state, writer);
        final int aux = state.aux(writer);
        final boolean handsOver = state.scope.variant().handsOver();
        switch (state.pc(writer))
        {
            case MoveState.INVOKE ->
            {
                refresh(state, writer, steps);
                final MoveState next = state.copy();
                next.invoke(writer - 1);
                next.pc(writer, view != Phase.SWITCH ? MoveState.WRITE_BLOCKS :
                    handsOver ? sealStart(state) : MoveState.WAIT, 0);
                steps.add(new Step<>(who + "invokes put(" + writer + ") in " + view +
                    (view == Phase.SWITCH && !handsOver ? " and waits" : ""), next));
            }
            case MoveState.WAIT -> refresh(state, writer, steps);
            case MoveState.SEAL_READ ->
            {
                final MoveState next = state.copy();
                next.rule(writer, state.sealed() ? MoveState.RULE_AFTER : MoveState.RULE_BEFORE);
                next.pc(writer, MoveState.WRITE_BLOCKS, 0);
                steps.add(new Step<>(who + "READs the tail before, " + name(state, MoveRules.beforeTail(state)) + ": " +
                    (state.sealed() ? "sealed, chains over the placement after" :
                        "not sealed, chains over the placement before"), next));
            }
            case MoveState.WRITE_BLOCKS ->
            {
                // blocks are invisible until a slot names them: one step for all of them loses no interleaving
                final MoveState next = state.copy();
                for (final int node : serving)
                {
                    next.writeBlock(node, writer);
                }
                for (final int node : MoveRules.forced(state, writer))
                {
                    next.writeBlock(node, writer);
                }
                next.pc(writer, MoveState.READ_SLOTS, 0);
                steps.add(new Step<>(who + "WRITEs its blocks", next));
            }
            case MoveState.READ_SLOTS ->
            {
                // the READs go out in one batch: they land in any order
                final int all = (1 << serving.length) - 1;
                for (int i = 0; i < serving.length; i++)
                {
                    if ((aux & (1 << i)) == 0)
                    {
                        final MoveState next = state.copy();
                        next.read(writer, serving[i], state.slot(serving[i]));
                        if (handsOver && serving[i] == MoveRules.beforeTail(state) && state.sealed())
                        {
                            next.sawSeal(writer, true);
                        }
                        final int done = aux | (1 << i);
                        next.pc(writer, done == all ? MoveState.DECIDE : MoveState.READ_SLOTS, done == all ? 0 : done);
                        steps.add(new Step<>(who + "READs " + name(state, serving[i]) + "'s slot: " +
                            value(state.slot(serving[i])), next));
                    }
                }
            }
            case MoveState.SEAL_START, MoveState.SEAL_READ_ENTERING, MoveState.SEAL_READ_BEFORE,
                MoveState.SEAL_DECIDE, MoveState.SEAL_TAIL_AGAIN -> WriterSeal.steps(state, writer, steps);
            case MoveState.DECIDE -> decide(state, writer, serving, steps);
            case MoveState.FORCE, MoveState.FORCE_READ_TAIL, MoveState.FORCE_CAS ->
                force(state, writer, serving, steps);
            case MoveState.CHAIN -> chain(state, writer, serving, steps);
            default ->
            {
            }
        }
    }

    /** A writer not yet started, or waiting out SWITCH, may read the membership again and take the driver's phase. */
    private static void refresh(final MoveState state, final int writer, final List<Step<MoveState>> steps)
    {
        if (state.view(writer) == state.phase())
        {
            return;
        }
        final MoveState next = state.copy();
        next.view(writer, state.phase());
        if (state.pc(writer) == MoveState.WAIT && state.phase() != Phase.SWITCH)
        {
            next.pc(writer, MoveState.WRITE_BLOCKS, 0);
        }
        steps.add(new Step<>("W" + writer + " reads the membership: " + state.phase(), next));
    }

    private static void decide(final MoveState state, final int writer, final int[] serving,
        final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final MoveState next = state.copy();
        final boolean after = MoveRules.chainsAfter(state, writer);
        if (!after && state.sawSeal(writer))
        {
            // the key was handed over: its writes decide at the tail after the change, which a newer view names
            startOver(next, writer);
            steps.add(new Step<>(who + "READ the tail before sealed: reads the membership (" + state.phase() +
                ") and starts over", next));
            return;
        }
        final int[] cas = nextCas(state, writer);
        if (cas != null && cas[3] == 1)
        {
            final int tail = cas[0];
            if (MoveRules.lands(state, after, tail, cas[1]))
            {
                MoveRules.land(next, after, tail, writer);
                next.wonTail(writer);
                final int[] forced = MoveRules.forced(state, writer);
                next.pc(writer, forced.length > 0 ? MoveState.FORCE : MoveState.CHAIN,
                    forced.length > 0 ? 0 : serving.length - 1);
                steps.add(new Step<>(who + "CASes the tail " + name(state, tail) + " " + value(cas[1]) + " -> " +
                    writer + ": won", next));
            }
            else if (!after && state.scope.variant().handsOver() && state.sealed() &&
                tail == MoveRules.beforeTail(state))
            {
                startOver(next, writer);
                steps.add(new Step<>(who + "CASes the tail " + name(state, tail) + " " + value(cas[1]) + " -> " +
                    writer + ": lost to the seal: reads the membership (" + state.phase() + ") and starts over",
                    next));
            }
            else
            {
                retryOrFail(next, writer);
                steps.add(new Step<>(who + "CASes the tail " + name(state, tail) + " " + value(cas[1]) + " -> " +
                    writer + ": lost to " + value(state.slot(tail)), next));
            }
            return;
        }
        restartReads(next, writer);
        if (cas != null)
        {
            // the write in flight will not finish: roll it forward, one replica nearer the head
            final boolean swapped = MoveRules.lands(state, after, cas[0], cas[1]);
            if (swapped)
            {
                next.writeBlock(cas[0], cas[2]);
                MoveRules.land(next, after, cas[0], cas[2]);
            }
            steps.add(new Step<>(who + "repairs: CASes " + name(state, cas[0]) + " " + value(cas[1]) + " -> " +
                cas[2] + (swapped ? "" : " (failed)"), next));
        }
        else
        {
            steps.add(new Step<>(who + "sees a write in flight and reads again", next));
        }
    }

    /**
     * @return the CAS a writer posts at its next step, {node, expected, desired, 1 when it is for the tail}, or null
     * when its next step is no CAS.
     */
    static int[] nextCas(final MoveState state, final int writer)
    {
        final int[] cas = nextCasOf(state, writer);
        final int after = MoveRules.chainsAfter(state, writer) ? 1 : 0;
        return cas == null ? null : new int[]{cas[0], cas[1], cas[2], cas[3], after};
    }

    private static int[] nextCasOf(final MoveState state, final int writer)
    {
        final int[] serving = MoveRules.serving(state, writer);
        final int aux = state.aux(writer);
        switch (state.pc(writer))
        {
            case MoveState.FORCE ->
            {
                if (MoveRules.forcesWhileTailNamesIt(state))
                {
                    return null;
                }
                // the loop's CAS from the word its READ returned, which a crash leaves as it is now at the latest
                final int node = MoveRules.forced(state, writer)[aux];
                return new int[]{node, state.slot(node), writer, 0};
            }
            case MoveState.FORCE_CAS ->
            {
                final int node = MoveRules.forced(state, writer)[aux];
                return new int[]{node, state.read(writer, node), writer, 0};
            }
            case MoveState.CHAIN ->
            {
                return aux == 0 ? null :
                    new int[]{serving[aux - 1], state.read(writer, serving[aux - 1]), writer, 0};
            }
            case MoveState.DECIDE ->
            {
                final int tail = serving[serving.length - 1];
                final int tailRead = state.read(writer, tail);
                for (int i = serving.length - 2; i >= 0; i--)
                {
                    if (state.read(writer, serving[i]) != tailRead)
                    {
                        return repairable(state, tailRead) ?
                            new int[]{serving[i], state.read(writer, serving[i]), tailRead, 0} : null;
                    }
                }
                return new int[]{tail, tailRead, writer, 1};
            }
            default ->
            {
                return null;
            }
        }
    }

    /**
     * A write in flight is rolled forward once its writer is past its deadline: it crashed, and what it posted
     * before has landed (a writer past its deadline posts nothing more).
     */
    static boolean repairable(final MoveState state, final int value)
    {
        return (value == 1 || value == 2) && state.crashed(value) && state.lateNode(value) < 0;
    }

    private static void force(final MoveState state, final int writer, final int[] serving,
        final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final int[] forced = MoveRules.forced(state, writer);
        final int aux = state.aux(writer);
        final int node = forced[aux];
        final MoveState next = state.copy();
        final boolean after = MoveRules.chainsAfter(state, writer);
        if (!MoveRules.forcesWhileTailNamesIt(state))
        {
            // the loop of READ and CAS until the member holds the write: a sealed member read sealed stays sealed
            MoveRules.land(next, after, node, writer);
            doneForcing(next, writer, forced.length, serving.length);
            steps.add(new Step<>(who + "forces " + name(state, node) + " " + value(state.slot(node)) + " -> " +
                writer, next));
            return;
        }
        final int tail = serving[serving.length - 1];
        switch (state.pc(writer))
        {
            case MoveState.FORCE ->
            {
                next.read(writer, node, state.slot(node));
                next.pc(writer, MoveState.FORCE_READ_TAIL, aux);
                steps.add(new Step<>(who + "READs " + name(state, node) + "'s slot: " + value(state.slot(node)),
                    next));
            }
            case MoveState.FORCE_READ_TAIL ->
            {
                // under a handover a sealed tail no longer decides this writer's chain: a force past it could land
                // over a write the tail after decided
                final MoveVariant variant = state.scope.variant();
                final boolean overtaken = state.slot(tail) != writer || (variant.handsOver() &&
                    variant != MoveVariant.HANDOVER_FORCES_PAST_SEAL && !after && tail == MoveRules.beforeTail(state) &&
                    state.sealed());
                if (overtaken)
                {
                    // a later write won the tail: its writer forces the member, and this write must not follow it
                    next.read(writer, node, MoveState.UNREAD);
                    doneForcing(next, writer, forced.length, serving.length);
                }
                else
                {
                    next.pc(writer, MoveState.FORCE_CAS, aux);
                }
                steps.add(new Step<>(who + "READs the tail " + name(state, tail) + ": " + value(state.slot(tail)) +
                    (overtaken ? ", a later write: stops forcing " + name(state, node) : ""), next));
            }
            default ->
            {
                final int expected = state.read(writer, node);
                final boolean swapped = MoveRules.lands(state, after, node, expected);
                next.read(writer, node, MoveState.UNREAD);
                if (swapped)
                {
                    MoveRules.land(next, after, node, writer);
                    doneForcing(next, writer, forced.length, serving.length);
                }
                else
                {
                    next.pc(writer, MoveState.FORCE, aux);
                }
                steps.add(new Step<>(who + "CASes " + name(state, node) + " " + value(expected) + " -> " + writer +
                    (swapped ? "" : ": failed, reads again"), next));
            }
        }
    }

    /** The writer is done with the member it was forcing: on to the next, or to the chain toward the head. */
    private static void doneForcing(final MoveState next, final int writer, final int forced, final int serving)
    {
        final int aux = next.aux(writer);
        next.pc(writer, aux + 1 < forced ? MoveState.FORCE : MoveState.CHAIN, aux + 1 < forced ? aux + 1 : serving - 1);
    }

    private static void chain(final MoveState state, final int writer, final int[] serving,
        final List<Step<MoveState>> steps)
    {
        final String who = "W" + writer + " ";
        final MoveState next = state.copy();
        final int aux = state.aux(writer);
        if (aux == 0)
        {
            // the head holds the write, and so does every replica of its chain
            next.answer(writer - 1, History.OK, 0);
            next.finish(writer);
            steps.add(new Step<>(who + "answers ok", next));
            return;
        }
        final int target = serving[aux - 1];
        final int expected = state.read(writer, target);
        if (MoveRules.lands(state, MoveRules.chainsAfter(state, writer), target, expected))
        {
            MoveRules.land(next, MoveRules.chainsAfter(state, writer), target, writer);
            next.pc(writer, MoveState.CHAIN, aux - 1);
            steps.add(new Step<>(who + "CASes " + name(state, target) + " " + value(expected) + " -> " + writer,
                next));
        }
        else
        {
            // no replica dies in this model, so the tail this writer won is live: no other chain may run
            next.pc(writer, MoveState.STUCK, target);
            steps.add(new Step<>(who + "CASes " + name(state, target) + " " + value(expected) + " -> " + writer +
                ": failed on " + value(state.slot(target)), next));
        }
    }

    private static void retryOrFail(final MoveState next, final int writer)
    {
        next.attempts(writer, next.attempts(writer) + 1);
        if (next.attempts(writer) >= next.scope.attempts())
        {
            next.answer(writer - 1, History.FAILED, 0);
            next.finish(writer);
        }
        else
        {
            restartReads(next, writer);
        }
    }

    /** A writer that met the seal takes the driver's phase, and starts its put over (its blocks written again). */
    private static void startOver(final MoveState next, final int writer)
    {
        next.view(writer, next.phase());
        next.rule(writer, MoveState.RULE_VIEW);
        next.clearRead(writer);
        next.pc(writer, next.phase() == Phase.SWITCH ? sealStart(next) : MoveState.WRITE_BLOCKS, 0);
    }

    /** @return where a writer in SWITCH starts: READing the tail before, or taking the path its time allows. */
    static int sealStart(final MoveState state)
    {
        return state.scope.variant().writersSeal() ? MoveState.SEAL_START : MoveState.SEAL_READ;
    }

    private static void restartReads(final MoveState next, final int writer)
    {
        next.clearRead(writer);
        next.pc(writer, MoveState.READ_SLOTS, 0);
    }

    /** A writer may crash at any step after it invokes; the CAS it was about to post may still land later. */
    static void crash(final MoveState state, final int writer, final List<Step<MoveState>> steps)
    {
        final int pc = state.pc(writer);
        if (pc == MoveState.INVOKE || pc == MoveState.DONE || pc == MoveState.STUCK || state.writerCrashesLeft() == 0)
        {
            return;
        }
        final MoveState next = state.copy();
        next.crashWriter(writer, nextCas(state, writer));
        steps.add(new Step<>("W" + writer + " crashes", next));
    }

    static void lateCas(final MoveState state, final int writer, final List<Step<MoveState>> steps)
    {
        final int node = state.lateNode(writer);
        if (node < 0)
        {
            return;
        }
        final MoveState next = state.copy();
        next.lateCasLanded(writer);
        final boolean after = state.lateCasChainsAfter(writer);
        final boolean swapped = MoveRules.lands(state, after, node, state.lateExpected(writer));
        if (swapped)
        {
            MoveRules.land(next, after, node, state.lateDesired(writer));
            if (state.lateCasIsForTheTail(writer))
            {
                next.wonTail(writer);
            }
        }
        steps.add(new Step<>("W" + writer + "'s CAS posted before it crashed lands: " + name(state, node) + " " +
            value(state.lateExpected(writer)) + " -> " + state.lateDesired(writer) + (swapped ? "" : " (failed)"),
            next));
    }

    static String name(final MoveState state, final int node)
    {
        return state.placement().name(node);
    }

    static String value(final int value)
    {
        return value == MoveState.ABSENT ? "-" : String.valueOf(value);
    }
}

package io.dkv.client.replication;

import java.util.ArrayList;
import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * The replication protocol's steps, each one atomic one-sided operation on one replica (a block WRITE, a slot READ
 * or a slot CAS) or a crash. A step's local reasoning (is the snapshot settled, which replica is next) goes with the
 * remote operation it leads to, as it touches nothing shared.
 *
 * <p>A put: WRITE its block to every live replica; READ every live replica's slot; if they all name the same write
 * (settled), CAS the tail from it: the one writer that wins goes on, a loser tries again from the READs. The winner
 * CASes the remaining live replicas one by one toward the head and answers ok once the head holds its write. A
 * snapshot that is not settled shows a write in flight: read again, or, when its writer crashed (its lease or
 * operation deadline passed), roll its write forward one replica toward the head first. The READs land in any
 * order, yet a CAS in the chain cannot fail while the tail this writer won is live (the walk would stop on it).
 * Once that tail has died, another writer may have won the new tail: then the write is on no live replica, so it
 * tries again (or reports failure: it took no effect). A get READs the head's slot.
 */
final class ChainProtocol
{
    private ChainProtocol()
    {
    }

    static List<Step<ModelState>> steps(final ModelState state)
    {
        final List<Step<ModelState>> steps = new ArrayList<>();
        for (int writer = 1; writer <= Scope.WRITERS; writer++)
        {
            writerStep(state, writer, steps);
            if (state.pc(writer) != ModelState.INVOKE && state.pc(writer) != ModelState.DONE &&
                state.writerCrashesLeft() > 0)
            {
                final ModelState next = state.copy();
                next.crashWriter(writer, nextCas(state, writer));
                steps.add(new Step<>("W" + writer + " crashes", next));
            }
            lateCas(state, writer, steps);
        }
        readerStep(state, steps);
        if (state.replicaCrashesLeft() > 0 && state.liveCount() > 1)
        {
            for (int i = 0; i < state.replicas(); i++)
            {
                if (state.live(i))
                {
                    final ModelState next = state.copy();
                    next.crash(i);
                    steps.add(new Step<>("replica " + i + " crashes", next));
                }
            }
        }
        return steps;
    }

    private static void writerStep(final ModelState state, final int writer, final List<Step<ModelState>> steps)
    {
        final String who = "W" + writer + " ";
        final int op = writer - 1;
        final ModelState next = state.copy();
        final int aux = state.aux(writer);
        switch (state.pc(writer))
        {
            case ModelState.INVOKE ->
            {
                next.invoke(op);
                next.pc(writer, ModelState.WRITE_BLOCKS, 0);
                steps.add(new Step<>(who + "invokes put(" + writer + ")", next));
            }
            case ModelState.WRITE_BLOCKS ->
            {
                // a WRITE to a crashed replica fails and is not waited for: only live replicas must hold the write
                if (state.live(aux))
                {
                    next.writeBlock(aux, writer);
                }
                next.pc(writer, aux + 1 < state.replicas() ? ModelState.WRITE_BLOCKS : ModelState.READ_SLOTS,
                    aux + 1 < state.replicas() ? aux + 1 : 0);
                steps.add(new Step<>(who + "WRITEs its block to replica " + aux, next));
            }
            case ModelState.READ_SLOTS ->
            {
                // the READs go out in one batch: they land in any order
                final int all = (1 << state.replicas()) - 1;
                for (int i = 0; i < state.replicas(); i++)
                {
                    if ((aux & (1 << i)) != 0)
                    {
                        continue;
                    }
                    final ModelState read = state.copy();
                    read.read(writer, i, state.live(i) ? state.slot(i) : ModelState.UNREAD);
                    final int done = aux | (1 << i);
                    read.pc(writer, done == all ? ModelState.DECIDE : ModelState.READ_SLOTS, done == all ? 0 : done);
                    steps.add(new Step<>(who + "READs replica " + i + "'s slot: " + state.slot(i), read));
                }
            }
            case ModelState.DECIDE -> decide(state, writer, next, steps);
            case ModelState.CHAIN -> chain(state, writer, next, steps);
            default ->
            {
            }
        }
    }

    private static void decide(final ModelState state, final int writer, final ModelState next,
        final List<Step<ModelState>> steps)
    {
        final String who = "W" + writer + " ";
        final int[] cas = nextCas(state, writer);
        if (cas != null && cas[3] == 1)
        {
            final int tail = cas[0];
            if (state.slot(tail) == cas[1])
            {
                next.slot(tail, writer);
                next.wonTail(writer);
                next.tailWon(writer, tail);
                next.pc(writer, ModelState.CHAIN, tail);
                if (state.scope.variant() == Variant.ACK_AT_TAIL)
                {
                    next.answer(writer - 1, History.OK, 0);
                }
                steps.add(new Step<>(who + "CASes the tail, replica " + tail + ", " + cas[1] + " -> " + writer +
                    ": won" + (state.scope.variant() == Variant.ACK_AT_TAIL ? ", answers ok" : ""), next));
            }
            else
            {
                retryOrFail(next, writer);
                steps.add(new Step<>(who + "CASes the tail, replica " + tail + ", " + cas[1] + " -> " + writer +
                    ": lost to " + state.slot(tail), next));
            }
            return;
        }
        restartReads(next, writer);
        if (cas != null)
        {
            // the write in flight will not finish: roll it forward, one replica nearer the head
            final boolean swapped = state.slot(cas[0]) == cas[1];
            if (swapped)
            {
                next.slot(cas[0], cas[2]);
            }
            steps.add(new Step<>(who + "repairs: CASes replica " + cas[0] + " " + cas[1] + " -> " + cas[2] +
                (swapped ? "" : " (failed)"), next));
        }
        else
        {
            steps.add(new Step<>(who + "sees a write in flight and reads again", next));
        }
    }

    /**
     * @return the CAS a writer posts at its next step, {replica, expected, desired, 1 when it is for the tail},
     * or null when its next step is
     * no CAS.
     */
    private static int[] nextCas(final ModelState state, final int writer)
    {
        if (state.pc(writer) == ModelState.CHAIN)
        {
            final int target = state.liveBelow(state.aux(writer));
            return target < 0 ? null : new int[]{target, state.read(writer, target), writer, 0};
        }
        if (state.pc(writer) != ModelState.DECIDE)
        {
            return null;
        }
        final int tail = state.tail();
        final int tailRead = state.read(writer, tail);
        for (int i = tail - 1; i >= 0; i--)
        {
            if (state.live(i) && state.read(writer, i) != tailRead)
            {
                // not settled: a write is in flight, and it is rolled forward only once its writer has crashed
                final boolean repair = tailRead != 0 && state.crashed(tailRead) &&
                    state.scope.variant() != Variant.NO_REPAIR;
                return repair ? new int[]{i, state.read(writer, i), tailRead, 0} : null;
            }
        }
        return new int[]{tail, tailRead, writer, 1};
    }

    /** A CAS a writer posted just before it crashed (or stopped past its deadline) may land at any later time. */
    private static void lateCas(final ModelState state, final int writer, final List<Step<ModelState>> steps)
    {
        final int replica = state.lateReplica(writer);
        if (replica < 0)
        {
            return;
        }
        final ModelState next = state.copy();
        next.lateCasLanded(writer);
        final boolean swapped = state.live(replica) && state.slot(replica) == state.lateExpected(writer);
        if (swapped)
        {
            next.slot(replica, state.lateDesired(writer));
            if (state.lateCasIsForTheTail(writer))
            {
                next.wonTail(writer);
            }
        }
        steps.add(new Step<>("W" + writer + "'s CAS posted before it crashed lands: replica " + replica + " " +
            state.lateExpected(writer) + " -> " + state.lateDesired(writer) + (swapped ? "" : " (failed)"), next));
    }

    private static void chain(final ModelState state, final int writer, final ModelState next,
        final List<Step<ModelState>> steps)
    {
        final String who = "W" + writer + " ";
        final int target = state.liveBelow(state.aux(writer));
        if (target < 0)
        {
            // the head holds the write: every live replica does
            final boolean answers = state.status(writer - 1) == History.PENDING;
            if (answers)
            {
                next.answer(writer - 1, History.OK, 0);
            }
            next.finish(writer);
            steps.add(new Step<>(who + (answers ? "answers ok" : "is done"), next));
            return;
        }
        final int expected = state.read(writer, target);
        if (state.slot(target) == expected)
        {
            next.slot(target, writer);
            next.pc(writer, ModelState.CHAIN, target);
            steps.add(new Step<>(who + "CASes replica " + target + " " + expected + " -> " + writer, next));
        }
        else if (state.live(state.tailWon(writer)))
        {
            // a write that changed the replica since it was read would have won the tail first, and the READ of the
            // tail, current when this writer's tail CAS succeeded, would have shown it: the snapshot was not settled
            throw new IllegalStateException("W" + writer + "'s CAS of replica " + target + " from " + expected +
                " failed on " + state.slot(target) + " while the tail it won, replica " + state.tailWon(writer) +
                ", is live " + state.replicasToString());
        }
        else
        {
            retryOrFail(next, writer);
            steps.add(new Step<>(who + "CASes replica " + target + " " + expected + " -> " + writer + ": failed, " +
                "its tail died and another write holds the chain", next));
        }
    }

    private static void retryOrFail(final ModelState next, final int writer)
    {
        next.attempts(writer, next.attempts(writer) + 1);
        if (next.attempts(writer) >= next.scope.attempts())
        {
            if (next.status(writer - 1) == History.PENDING)
            {
                next.answer(writer - 1, History.FAILED, 0);
            }
            next.finish(writer);
        }
        else
        {
            restartReads(next, writer);
        }
    }

    private static void restartReads(final ModelState next, final int writer)
    {
        next.clearRead(writer);
        next.pc(writer, ModelState.READ_SLOTS, 0);
    }

    private static void readerStep(final ModelState state, final List<Step<ModelState>> steps)
    {
        if (state.readsMade() == state.scope.reads())
        {
            return;
        }
        final int op = Scope.WRITERS + state.readsMade();
        final ModelState next = state.copy();
        if (!state.readerInvoked())
        {
            next.invoke(op);
            next.readerInvoked(true);
            steps.add(new Step<>(History.name(op) + " invokes get()", next));
            return;
        }
        final int replica = state.scope.variant() == Variant.READ_TAIL ? state.tail() : state.head();
        final int value = state.slot(replica);
        next.answer(op, History.OK, value);
        next.readerInvoked(false);
        next.readMade();
        steps.add(new Step<>(History.name(op) + " READs replica " + replica + "'s slot and returns " + value, next));
    }
}

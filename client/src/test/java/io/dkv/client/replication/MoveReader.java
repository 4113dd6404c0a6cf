package io.dkv.client.replication;

import java.util.List;

import io.dkv.client.replication.Model.Step;

/**
 * A reader's steps while a key's placement moves: one READ of a head, the head of the placement before the change
 * under STEADY (before) and FILL, of the one after under CLEANUP and STEADY (after). Under SWITCH it READs both heads,
 * one after the other in either order, and answers only when they name the same write; otherwise it reads them
 * again, and may read the membership first (as the design's readers do while they wait).
 */
final class MoveReader
{
    private MoveReader()
    {
    }

    static void steps(final MoveState state, final int reader, final List<Step<MoveState>> steps)
    {
        final int op = Scope.WRITERS + reader;
        final String who = History.name(op) + " ";
        final Phase view = state.readerView(reader);
        switch (state.readerPc(reader))
        {
            case MoveState.INVOKE ->
            {
                refresh(state, reader, steps);
                final MoveState next = state.copy();
                next.invoke(op);
                next.readerPc(reader, MoveState.READING);
                steps.add(new Step<>(who + "invokes get() in " + view, next));
            }
            case MoveState.READING ->
            {
                if (view == Phase.SWITCH && state.scope.variant() != MoveVariant.SWITCH_READS_AFTER_HEAD)
                {
                    readBothHeads(state, reader, steps);
                }
                else
                {
                    final int head = view.ordinal() < Phase.SWITCH.ordinal() ?
                        state.placement().before()[0] : state.placement().after()[0];
                    final MoveState next = state.copy();
                    next.answer(op, History.OK, state.slot(head));
                    next.readerPc(reader, MoveState.DONE);
                    steps.add(new Step<>(who + "READs the head " + MoveWriter.name(state, head) + " and returns " +
                        MoveWriter.value(state.slot(head)), next));
                }
            }
            default ->
            {
            }
        }
    }

    private static void readBothHeads(final MoveState state, final int reader, final List<Step<MoveState>> steps)
    {
        final int op = Scope.WRITERS + reader;
        final String who = History.name(op) + " ";
        final int aux = state.readerAux(reader);
        if (aux == 0 && state.scope.readersRefresh())
        {
            refresh(state, reader, steps);
        }
        for (int which = 0; which < 2; which++)
        {
            if ((aux & (1 << which)) != 0)
            {
                continue;
            }
            final boolean afterHead = which == 1;
            final int head = afterHead ? state.placement().after()[0] : state.placement().before()[0];
            final int value = state.slot(head);
            final MoveState next = state.copy();
            next.readerRead(reader, afterHead, value);
            String label = who + "READs the head " + (afterHead ? "after, " : "before, ") +
                MoveWriter.name(state, head) + ": " + MoveWriter.value(value);
            if (next.readerAux(reader) == 3)
            {
                if (next.readerRead(reader, true) == next.readerRead(reader, false))
                {
                    next.answer(op, History.OK, value);
                    next.readerPc(reader, MoveState.DONE);
                    label += ", the heads agree: returns " + MoveWriter.value(value);
                }
                else
                {
                    next.clearReaderReads(reader);
                    label += ", the heads differ: reads again";
                }
            }
            steps.add(new Step<>(label, next));
        }
    }

    private static void refresh(final MoveState state, final int reader, final List<Step<MoveState>> steps)
    {
        if (state.readerView(reader) != state.phase())
        {
            final MoveState next = state.copy();
            next.readerView(reader, state.phase());
            steps.add(new Step<>(History.name(Scope.WRITERS + reader) + " reads the membership: " + state.phase(),
                next));
        }
    }
}

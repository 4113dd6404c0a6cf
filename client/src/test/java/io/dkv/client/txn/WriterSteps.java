package io.dkv.client.txn;

import java.util.List;

/**
 * The put's steps: read the key through whatever it holds (resolving an intent first, never replacing one blind),
 * then a compare-and-set from the version read; beaten by another write, it reads again. An unknown outcome is
 * answered unknown, as the single-key write's is.
 */
final class WriterSteps
{
    private WriterSteps()
    {
    }

    static void actions(final TxnModel model, final TxnState state, final int self, final PlainWriter w,
        final List<Action> out)
    {
        final TxnScope scope = model.scope();
        final int key = scope.writerKey();
        if (w.lookup() != null)
        {
            LookupSteps.actions(state, w.lookup(), model.mode(self), new LookupSteps.Owner()
            {
                @Override
                public TxnState next(final TxnState s, final Lookup lookup)
                {
                    return s.withActor(self, new PlainWriter(lookup, 0, w.writes()));
                }

                @Override
                public TxnState found(final TxnState s, final int value, final int version)
                {
                    return s.withActor(self, new PlainWriter(null, version, w.writes()));
                }
            }, out);
            return;
        }
        out.add(new Action.Cas("puts", key, w.version(), new Content.Plain(model.writerValue()),
            (s, outcome, version) -> switch (outcome)
            {
                case DONE -> s.answer(scope.writerOp(), Op.OK).withActor(self, Actor.Stopped.STOPPED);
                case FAILED -> s.withActor(self, new PlainWriter(Lookup.read(key), 0, w.writes()));
                case UNKNOWN -> s.answer(scope.writerOp(), Op.INFO).withActor(self, Actor.Stopped.STOPPED);
            }));
    }
}

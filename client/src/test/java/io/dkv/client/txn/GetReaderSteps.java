package io.dkv.client.txn;

import java.util.List;

/**
 * The gets' steps: each get reads its key through whatever it holds (waiting on a PENDING primary, or pushing it),
 * and answers the value, never writing but to push.
 */
final class GetReaderSteps
{
    private GetReaderSteps()
    {
    }

    static void actions(final TxnModel model, final TxnState state, final int self, final GetReader g,
        final List<Action> out)
    {
        final int op = model.scope().observerOp() + g.index();
        LookupSteps.actions(state, g.lookup(), model.mode(self), new LookupSteps.Owner()
        {
            @Override
            public TxnState next(final TxnState s, final Lookup lookup)
            {
                return s.withActor(self, new GetReader(g.index(), lookup, g.writes()));
            }

            @Override
            public TxnState found(final TxnState s, final int value, final int version)
            {
                final TxnState answered = s.answer(op, Op.OK, KeyInts.EMPTY.with(g.lookup().key(), value),
                    KeyInts.EMPTY);
                final int next = g.index() + 1;
                return answered.withActor(self, next == GetReader.GETS ? Actor.Stopped.STOPPED :
                    new GetReader(next, Lookup.read(next), g.writes()));
            }
        }, out);
    }
}

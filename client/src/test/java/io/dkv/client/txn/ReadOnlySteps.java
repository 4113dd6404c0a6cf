package io.dkv.client.txn;

import java.util.List;

/**
 * The read-only transaction's steps: reads x then y, each resolved to a plain value and its version, then reads both
 * again in either order (the draft's "Cost": "read-only: the reads, then a validation round"); each must still
 * hold the version read, else the transaction answers failed (a retry would be a new one).
 */
final class ReadOnlySteps
{
    private static final int BOTH = (1 << Values.X) | (1 << Values.Y);

    private ReadOnlySteps()
    {
    }

    static void actions(final TxnModel model, final TxnState state, final int self, final ReadOnlyReader r,
        final List<Action> out)
    {
        final int op = model.scope().observerOp();
        if (r.lookup() != null)
        {
            LookupSteps.actions(state, r.lookup(), model.mode(self), new LookupSteps.Owner()
            {
                @Override
                public TxnState next(final TxnState s, final Lookup lookup)
                {
                    return s.withActor(self, new ReadOnlyReader(lookup, r.versions(), r.values(), 0, r.writes()));
                }

                @Override
                public TxnState found(final TxnState s, final int value, final int version)
                {
                    final int key = r.lookup().key();
                    final boolean last = key == Values.Y;
                    return s.withActor(self, new ReadOnlyReader(last ? null : Lookup.read(Values.Y),
                        r.versions().with(key, version), r.values().with(key, value), last ? BOTH : 0, r.writes()));
                }
            }, out);
            return;
        }
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int k = key;
            if ((r.left() & (1 << k)) == 0)
            {
                continue;
            }
            out.add(new Action.Read("validates " + Values.key(k), k, (s, slot) ->
            {
                if (slot.version() != r.versions().get(k))
                {
                    return s.answer(op, Op.FAILED).withActor(self, Actor.Stopped.STOPPED);
                }
                final int left = r.left() & ~(1 << k);
                return left == 0 ?
                    s.answer(op, Op.OK, r.values(), KeyInts.EMPTY).withActor(self, Actor.Stopped.STOPPED) :
                    s.withActor(self, new ReadOnlyReader(null, r.versions(), r.values(), left, r.writes()));
            }));
        }
    }
}

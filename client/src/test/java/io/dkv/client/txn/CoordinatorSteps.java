package io.dkv.client.txn;

import java.util.List;

import io.dkv.client.txn.Action.Outcome;
import io.dkv.client.txn.Content.Intent;
import io.dkv.client.txn.Content.Plain;
import io.dkv.client.txn.Coordinator.Phase;

/**
 * A coordinator's steps (the draft's "Rules"): Execute reads each key through what it holds; the keys written but
 * never read are read next. Commit swaps the primary's PENDING intent in, from the version read, then every
 * secondary's at once (in any order), reads each key read only again, decides by a compare-and-set of the primary
 * from its PENDING word (to COMMITTED, or straight to its value when it has no secondaries), answers, and resolves:
 * each secondary to its value, then the primary. A failed intent, a validation that finds a key changed, or an
 * outcome unknown before the decision, aborts: the primary back to its prior value (the same compare-and-set a pusher
 * makes), then each secondary swapped in. An unknown decision is answered unknown and the coordinator stops, leaving
 * its intents to whoever meets them. The broken variants change one rule each.
 */
final class CoordinatorSteps
{
    private CoordinatorSteps()
    {
    }

    /**
     * The transaction's fixed facts, with the coordinator's state now.
     *
     * @param scope the scope.
     * @param self  the coordinator's actor index, also its operation's; its transaction is T(self + 1).
     * @param c     its state.
     */
    private record Txn(TxnScope scope, int self, Coordinator c)
    {
        int id()
        {
            return self + 1;
        }

        Workload work()
        {
            return scope.workload(self);
        }

        TxnVariant variant()
        {
            return scope.variant();
        }

        int primary()
        {
            return work().primary();
        }

        int primaryBit()
        {
            return 1 << primary();
        }

        int newValue(final int key)
        {
            return work().newValue(id(), key, c.readValues());
        }

        int prior(final int key)
        {
            return c.readValues().get(key);
        }

        TxnState to(final TxnState state, final Actor next)
        {
            return state.withActor(self, next);
        }
    }

    static void actions(final TxnModel model, final TxnState state, final int self, final Coordinator c,
        final List<Action> out)
    {
        final Txn t = new Txn(model.scope(), self, c);
        switch (c.phase())
        {
            case EXECUTE -> LookupSteps.actions(state, c.lookup(), model.mode(self), new LookupSteps.Owner()
            {
                @Override
                public TxnState next(final TxnState s, final Lookup lookup)
                {
                    return t.to(s, c.reading(lookup));
                }

                @Override
                public TxnState found(final TxnState s, final int value, final int version)
                {
                    return executed(t, s, value, version);
                }
            }, out);
            case INTENTS, LATE_SECONDARIES -> intents(t, out);
            case VALIDATE -> validate(t, out);
            case DECIDE -> out.add(new Action.Cas("decides", t.primary(), c.mine().get(t.primary()),
                t.work().secondaries() == 0 ? new Plain(t.newValue(t.primary())) : Intent.committed(t.id(),
                t.primary(), t.newValue(t.primary()), t.prior(t.primary()), t.work().secondaries()),
                (s, outcome, version) -> decided(t, s, outcome, version)));
            case RESOLVE, ROLLBACK -> resolve(t, out);
            case ABORT -> out.add(new Action.Cas("aborts", t.primary(), c.mine().get(t.primary()),
                new Plain(t.prior(t.primary())), (s, outcome, version) -> aborted(t, s, outcome)));
            default -> throw new IllegalStateException(c.toString());
        }
    }

    private static TxnState executed(final Txn t, final TxnState state, final int value, final int version)
    {
        final Coordinator c = t.c();
        final Coordinator read = c.read(c.lookup().key(), value, version, null);
        final int nextKey = t.work().nextLookup(read.readVersions());
        if (nextKey >= 0)
        {
            return t.to(state, read.reading(Lookup.read(nextKey)));
        }
        // every key is read: the writes are fixed, and from here on the transaction may take effect
        final Txn fixed = new Txn(t.scope(), t.self(), read);
        KeyInts reads = KeyInts.EMPTY;
        KeyInts writes = KeyInts.EMPTY;
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            if ((t.work().readMask() & (1 << key)) != 0)
            {
                reads = reads.with(key, fixed.prior(key));
            }
            if ((t.work().writeMask() & (1 << key)) != 0)
            {
                writes = writes.with(key, fixed.newValue(key));
            }
        }
        final TxnHistory history = state.history();
        final int intents = t.variant() == TxnVariant.COMMITTED_BEFORE_WHOLE ? t.primaryBit() : t.work().writeMask();
        return t.to(state.withHistory(history.with(t.self(), history.op(t.self()).with(reads, writes))),
            read.at(Phase.INTENTS, intents));
    }

    /** The intents still to swap in, each from the version read: the primary first, unless a variant says not. */
    private static void intents(final Txn t, final List<Action> out)
    {
        final Coordinator c = t.c();
        final boolean anyOrder = t.variant() == TxnVariant.SECONDARIES_BEFORE_PRIMARY;
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int k = key;
            if ((c.left() & (1 << k)) == 0 || !anyOrder && k != t.primary() && (c.left() & t.primaryBit()) != 0)
            {
                continue;
            }
            final Content intent = k == t.primary() ?
                Intent.pending(t.id(), k, t.newValue(k), t.prior(k)) :
                Intent.secondary(t.id(), t.primary(), t.newValue(k), t.prior(k));
            out.add(new Action.Cas(k == t.primary() ? "swaps its primary in" : "swaps a secondary in", k,
                c.readVersions().get(k), intent, (s, outcome, version) -> swapped(t, s, k, outcome, version)));
        }
    }

    private static TxnState swapped(final Txn t, final TxnState state, final int key, final Outcome outcome,
        final int version)
    {
        final Coordinator next = t.c().swapped(key, version, outcome != Outcome.FAILED, outcome != Outcome.DONE);
        if (t.c().phase() == Phase.LATE_SECONDARIES)
        {
            return t.to(state, next.left() != 0 ? next : next.at(Phase.RESOLVE, next.placed()));
        }
        if (key == t.primary() && outcome != Outcome.DONE && t.variant() != TxnVariant.SECONDARIES_BEFORE_PRIMARY)
        {
            return outcome == Outcome.FAILED ? t.to(state.answer(t.self(), Op.FAILED), Actor.Stopped.STOPPED) :
                abort(t, state, next);
        }
        if (next.left() != 0)
        {
            return t.to(state, next);
        }
        if (next.failed())
        {
            return abort(t, state, next);
        }
        final int validated = t.variant() == TxnVariant.VALIDATION_SKIPPED ? 0 : t.work().validated();
        return t.to(state, validated != 0 ? next.at(Phase.VALIDATE, validated) : next.at(Phase.DECIDE, 0));
    }

    /** Each key read only, again, in any order: it must hold the version read. */
    private static void validate(final Txn t, final List<Action> out)
    {
        final Coordinator c = t.c();
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int k = key;
            if ((c.left() & (1 << k)) != 0)
            {
                out.add(new Action.Read("validates " + Values.key(k), k, (s, slot) ->
                    slot.version() != c.readVersions().get(k) ? abort(t, s, c) :
                    t.to(s, c.left() == 1 << k ? c.at(Phase.DECIDE, 0) : c.at(Phase.VALIDATE, c.left() & ~(1 << k)))));
            }
        }
    }

    private static TxnState decided(final Txn t, final TxnState state, final Outcome outcome, final int version)
    {
        final Coordinator c = t.c();
        final int secondaries = t.work().secondaries();
        return switch (outcome)
        {
            case DONE ->
            {
                final TxnState answered = state.answer(t.self(), Op.OK);
                final Coordinator committed = c.mine(t.primary(), version);
                if (t.variant() == TxnVariant.COMMITTED_BEFORE_WHOLE && secondaries != 0)
                {
                    yield t.to(answered, committed.at(Phase.LATE_SECONDARIES, secondaries));
                }
                yield t.to(answered, secondaries == 0 ? Actor.Stopped.STOPPED :
                    committed.at(Phase.RESOLVE, c.placed()));
            }
            case FAILED -> rollback(t, state.answer(t.self(), Op.FAILED), c);
            case UNKNOWN -> t.to(state.answer(t.self(), Op.INFO), Actor.Stopped.STOPPED);
        };
    }

    /** Aborts: the primary back to its prior value when it may hold the intent, else straight to the rollback. */
    private static TxnState abort(final Txn t, final TxnState state, final Coordinator c)
    {
        if ((c.placed() & t.primaryBit()) != 0)
        {
            return t.to(state, c.at(Phase.ABORT, 0));
        }
        return rollback(t, state.answer(t.self(), Op.FAILED), c);
    }

    private static TxnState aborted(final Txn t, final TxnState state, final Outcome outcome)
    {
        final TxnState answered = state.history().op(t.self()).status() == Op.PENDING ?
            state.answer(t.self(), Op.FAILED) : state;
        if (outcome == Outcome.UNKNOWN && t.variant().settlesUnknownOutcomes())
        {
            return t.to(answered, t.c());
        }
        return rollback(t, answered, t.c());
    }

    private static TxnState rollback(final Txn t, final TxnState state, final Coordinator c)
    {
        final int secondaries = c.placed() & ~t.primaryBit();
        return t.to(state, secondaries == 0 ? Actor.Stopped.STOPPED : c.at(Phase.ROLLBACK, secondaries));
    }

    /**
     * Each key left from its intent to its value: on commit the new value, the secondaries (in any order) before the
     * primary; on abort the prior value. A compare-and-set that fails finds the key already resolved by someone else;
     * one of unknown outcome is tried again, unless the draft as written is modelled.
     */
    private static void resolve(final Txn t, final List<Action> out)
    {
        final Coordinator c = t.c();
        final boolean commit = c.phase() == Phase.RESOLVE;
        final boolean primaryLeft = (c.left() & t.primaryBit()) != 0;
        final boolean primaryFirst = t.variant() == TxnVariant.PRIMARY_RESOLVED_FIRST;
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int k = key;
            if ((c.left() & (1 << k)) == 0 || k == t.primary() && !primaryFirst && c.left() != t.primaryBit() ||
                k != t.primary() && primaryFirst && primaryLeft)
            {
                continue;
            }
            out.add(new Action.Cas((commit ? "resolves " : "rolls back ") + Values.key(k), k, c.mine().get(k),
                new Plain(commit ? t.newValue(k) : t.prior(k)), (s, outcome, version) ->
                {
                    final int left = outcome == Outcome.UNKNOWN && t.variant().settlesUnknownOutcomes() ?
                        c.left() : c.left() & ~(1 << k);
                    return t.to(s, left == 0 ? Actor.Stopped.STOPPED : c.at(c.phase(), left));
                }));
        }
    }
}

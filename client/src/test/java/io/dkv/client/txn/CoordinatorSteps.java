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
 *
 * <p>Parallel commit (a transaction that reads no key it does not write, under a parallel variant) swaps every intent
 * in at once, in any order, each from the version read: the primary's a STAGING record listing each secondary with
 * the write id its compare-and-set expects, each secondary's naming the write id the primary's expects. The
 * transaction is committed exactly when all of them are in: the coordinator answers once it knows, then decides the
 * record COMMITTED, then resolves as above. An intent's compare-and-set of unknown outcome is tried again from the
 * same version until known; one that then fails is settled by reading the key. A failed one aborts: the STAGING
 * record back to its prior value, then each secondary swapped in. An intent settled as not in leaves the outcome in
 * doubt (it may have been in, and been resolved since by whoever recovered the transaction): the coordinator aborts at
 * the STAGING word, or, that word gone, answers unknown and leaves the rest to whoever meets it.
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

        /** @return whether it commits in parallel: decided once every key is read. */
        boolean parallel()
        {
            if (!scope.parallel(self))
            {
                return false;
            }
            if (variant().parallelNeedsWriteIds())
            {
                for (int key = 0; key < KeyInts.MAX_KEYS; key++)
                {
                    if ((work().writeMask() & (1 << key)) != 0 && c.readVersions().get(key) == TxnModel.NO_WRITE_ID)
                    {
                        return false;
                    }
                }
            }
            return true;
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
            case STAGE -> stage(t, out);
            case VALIDATE -> validate(t, out);
            case DECIDE -> decide(t, out);
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
            read.at(fixed.parallel() ? Phase.STAGE : Phase.INTENTS, intents));
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

    /**
     * Parallel commit: every intent still to swap in, each from the version read, in any order; an unsure one again
     * from the same version; an unsure key whose second try failed is read.
     */
    private static void stage(final Txn t, final List<Action> out)
    {
        final Coordinator c = t.c();
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            final int k = key;
            final int bit = 1 << k;
            if ((c.left() & bit) != 0)
            {
                out.add(new Action.Cas((k == t.primary() ? "stages its primary" : "swaps a secondary in") +
                    ((c.unsure() & bit) != 0 ? " again" : ""), k, c.readVersions().get(k), k == t.primary() ?
                    staging(t) : Intent.parallelSecondary(t.id(), t.primary(), t.newValue(k), t.prior(k),
                    c.readVersions().get(t.primary())), (s, outcome, version) -> staged(t, s, k, outcome, version)));
            }
            else if ((c.unsure() & bit) != 0)
            {
                out.add(new Action.Read("reads " + Values.key(k) + " to settle its intent there", k,
                    (s, slot) -> confirmed(t, s, k, slot)));
            }
        }
    }

    /** @return the primary's STAGING record: every secondary, and the write id its compare-and-set expects. */
    private static Intent staging(final Txn t)
    {
        final int secondaries = t.work().secondaries();
        KeyInts expected = KeyInts.EMPTY;
        for (int key = 0; key < KeyInts.MAX_KEYS; key++)
        {
            if ((secondaries & (1 << key)) != 0)
            {
                expected = expected.with(key, t.c().readVersions().get(key));
            }
        }
        return Intent.staging(t.id(), t.primary(), t.newValue(t.primary()), t.prior(t.primary()), secondaries,
            expected);
    }

    private static TxnState staged(final Txn t, final TxnState state, final int key, final Outcome outcome,
        final int version)
    {
        final Coordinator c = t.c();
        final Coordinator next = switch (outcome)
        {
            case DONE -> c.swapped(key, version, true, false);
            case FAILED -> (c.unsure() & (1 << key)) != 0 ? c.toConfirm(key) : c.swapped(key, version, false, true);
            case UNKNOWN -> t.variant() == TxnVariant.PARALLEL_AS_PROPOSED ? c.swapped(key, version, true, true) :
                c.unsureOf(key);
        };
        final boolean early = t.variant() == TxnVariant.PARALLEL_ANSWER_BEFORE_WHOLE && key == t.primary() &&
            outcome == Outcome.DONE;
        return settled(t, early ? committedAnswer(t, state) : state, next);
    }

    /** An unsure key read: T's intent there is in; anything else is settled as not in, in doubt. */
    private static TxnState confirmed(final Txn t, final TxnState state, final int key, final Slot slot)
    {
        final Coordinator c = t.c();
        final boolean primary = key == t.primary();
        if (slot.content() instanceof Intent intent && intent.txn() == t.id() && intent.primary() == primary)
        {
            if (intent.committed())
            {
                // whoever recovered it found every intent in and decided it, and resolves it
                return t.to(committedAnswer(t, state), Actor.Stopped.STOPPED);
            }
            return settled(t, state, c.swapped(key, slot.version(), true, false));
        }
        return settled(t, state, c.doubted(key));
    }

    /** Once every intent's compare-and-set is known: committed when all are in, else abort, or answer unknown. */
    private static TxnState settled(final Txn t, final TxnState state, final Coordinator c)
    {
        if (c.left() != 0 || c.unsure() != 0)
        {
            return t.to(state, c);
        }
        if (!c.failed() && !c.doubt())
        {
            final boolean undecided = t.variant() == TxnVariant.PARALLEL_RESOLVED_WHILE_STAGING;
            return t.to(committedAnswer(t, state), undecided ? c.at(Phase.RESOLVE, c.placed()) : c.at(Phase.DECIDE, 0));
        }
        if ((c.placed() & t.primaryBit()) != 0)
        {
            return t.to(state, c.at(Phase.ABORT, 0));
        }
        return c.failed() ? rollback(t, failedAnswer(t, state), c) :
            t.to(state.answer(t.self(), Op.INFO), Actor.Stopped.STOPPED);
    }

    /** @return the state with the transaction answered committed, unless answered before; checked against P5. */
    private static TxnState committedAnswer(final Txn t, final TxnState state)
    {
        if (state.history().op(t.self()).status() != Op.PENDING)
        {
            return state;
        }
        final TxnState answered = state.answer(t.self(), Op.OK);
        return state.ghost().txn(t.id()).outcome() == Ghost.COMMITTED ? answered : answered.broken("T" + t.id() +
            " was answered committed before every one of its intents was in (P5)");
    }

    /** @return the state with the transaction answered failed; in parallel commit checked against P5. */
    private static TxnState failedAnswer(final Txn t, final TxnState state)
    {
        final TxnState answered = state.answer(t.self(), Op.FAILED);
        return t.parallel() && state.ghost().txn(t.id()).outcome() == Ghost.COMMITTED ? answered.broken("T" + t.id() +
            " was answered failed though every one of its intents was in (P5)") : answered;
    }

    /**
     * Parallel commit, the explicit decision after the answer: a compare-and-set that fails finds it decided by whoever
     * recovered the transaction, who resolves it; one of unknown outcome is tried again.
     */
    private static TxnState parallelDecided(final Txn t, final TxnState state, final Outcome outcome,
        final int version)
    {
        final Coordinator c = t.c();
        return switch (outcome)
        {
            case DONE -> t.to(state, c.mine(t.primary(), version).at(Phase.RESOLVE, c.placed()));
            case FAILED -> t.to(state, Actor.Stopped.STOPPED);
            case UNKNOWN -> t.to(state, c);
        };
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

    /**
     * The commit: the primary from its PENDING word to COMMITTED, or straight to its value with no secondaries; in
     * parallel commit, after the answer, the STAGING record to its COMMITTED form.
     */
    private static void decide(final Txn t, final List<Action> out)
    {
        final int primary = t.primary();
        final int from = t.c().mine().get(primary);
        if (t.parallel())
        {
            out.add(new Action.Cas("decides its STAGING record COMMITTED", primary, from, staging(t).decidedCommitted(),
                (s, outcome, version) -> parallelDecided(t, s, outcome, version)));
            return;
        }
        final int secondaries = t.work().secondaries();
        out.add(new Action.Cas("decides", primary, from, secondaries == 0 ? new Plain(t.newValue(primary)) :
            Intent.committed(t.id(), primary, t.newValue(primary), t.prior(primary), secondaries),
            (s, outcome, version) -> decided(t, s, outcome, version)));
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
        if (t.parallel() && outcome != Outcome.DONE)
        {
            if (outcome == Outcome.UNKNOWN && t.variant().settlesUnknownOutcomes())
            {
                return t.to(state, t.c());
            }
            if (!t.c().failed() && t.variant() != TxnVariant.PARALLEL_DOUBT_TAKEN_AS_FAILED)
            {
                // in doubt, and the STAGING word is gone: whoever recovered T committed or aborted it
                return t.to(state.answer(t.self(), Op.INFO), Actor.Stopped.STOPPED);
            }
        }
        final TxnState answered = state.history().op(t.self()).status() == Op.PENDING ?
            failedAnswer(t, state) : state;
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

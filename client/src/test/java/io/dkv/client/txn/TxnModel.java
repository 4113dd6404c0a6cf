package io.dkv.client.txn;

import java.util.ArrayList;
import java.util.List;

import io.dkv.client.txn.Action.Outcome;

/**
 * The commit protocol as the explorer walks it: the actors' next register operations ({@link Action}s), each run
 * against the store as one atomic step, branching on every outcome the scope allows. A compare-and-set takes effect
 * or fails; while the budget lasts, it may instead end unknown to its client, having taken effect, or being in flight
 * (it lands at a later step, before any other compare-and-set of the key can: the replication layer's next writer
 * rolls it forward first), or never landing. A coordinator may crash at any step after it starts (right after a
 * compare-and-set in flight, too): it stops, leaving whatever it wrote. An operation is invoked at its actor's first
 * step for it and answered at the step that decides it: the tightest real-time bounds a client could see, so the
 * strictest history to check (a later invocation or an earlier answer only adds order).
 */
final class TxnModel
{
    /**
     * One atomic step.
     *
     * @param label what happened, for a counterexample's trace.
     * @param next  the state it leads to.
     */
    record Step(String label, TxnState next)
    {
    }

    /** The version of a key with no value where the store gives such a key no write id: the initial one's. */
    static final int NO_WRITE_ID = 0;

    private final TxnScope scope;

    TxnModel(final TxnScope scope)
    {
        this.scope = scope;
    }

    TxnScope scope()
    {
        return scope;
    }

    TxnState initial()
    {
        final List<Actor> actors = new ArrayList<>();
        for (final Workload workload : scope.coordinators())
        {
            actors.add(Coordinator.start(workload.nextLookup(KeyInts.EMPTY)));
        }
        switch (scope.observer())
        {
            case GETS -> actors.add(new GetReader(0, Lookup.read(Values.X), 0));
            case READ_ONLY -> actors.add(new ReadOnlyReader(Lookup.read(Values.X), KeyInts.EMPTY, KeyInts.EMPTY, 0, 0));
            default ->
            {
            }
        }
        if (scope.hasWriter())
        {
            actors.add(new PlainWriter(Lookup.read(scope.writerKey()), 0, 0));
        }
        return new TxnState(Store.initial(scope.keys()), List.copyOf(actors), scope.coordinatorCrashes(),
            scope.unknowns(), Ghost.initial(scope.coordinators().size()), TxnHistory.of(scope.operations()));
    }

    int writerValue()
    {
        return Values.append(Values.NONE, scope.writerId());
    }

    /** @return how the actor reads through intents under the scope's variant. */
    LookupSteps.Mode mode(final int actor)
    {
        final TxnVariant variant = scope.variant();
        final boolean get = actor == scope.observerActor() && scope.observer() == TxnScope.Observer.GETS;
        return new LookupSteps.Mode(!get, get && variant == TxnVariant.READ_PRIOR_WHILE_PENDING,
            actor == scope.writerActor() && variant == TxnVariant.WRITER_OVERWRITES_PENDING,
            variant != TxnVariant.NO_PUSH, variant.settlesUnknownOutcomes(),
            variant != TxnVariant.PARALLEL_ABORT_UNFENCED, variant != TxnVariant.PARALLEL_ROLLBACK_UNFENCED);
    }

    /** @return every step some actor may take, the in-flight compare-and-sets' landings, and crashes. */
    List<Step> steps(final TxnState state)
    {
        final List<Step> steps = new ArrayList<>();
        final List<Action> actions = new ArrayList<>();
        for (int actor = 0; actor < scope.actors(); actor++)
        {
            actions.clear();
            final Actor a = state.actor(actor);
            switch (a)
            {
                case Coordinator c -> CoordinatorSteps.actions(this, state, actor, c, actions);
                case GetReader g -> GetReaderSteps.actions(this, state, actor, g, actions);
                case ReadOnlyReader r -> ReadOnlySteps.actions(this, state, actor, r, actions);
                case PlainWriter w -> WriterSteps.actions(this, state, actor, w, actions);
                case Actor.Stopped stopped ->
                {
                }
            }
            if (actions.isEmpty())
            {
                continue;
            }
            final int op = operation(actor, a);
            final boolean started = state.history().op(op).status() != Op.NOT_INVOKED;
            final TxnState invoked = started ? state :
                state.withHistory(state.history().invoke(op, invocation(op)));
            for (final Action action : actions)
            {
                run(invoked, actor, action, steps);
            }
            if (a instanceof Coordinator && started && state.crashesLeft() > 0)
            {
                steps.add(new Step(scope.actorName(actor) + " crashes", state.crashed(actor)));
            }
        }
        for (int key = 0; key < scope.keys(); key++)
        {
            final Slot slot = state.store().slot(key);
            if (slot.hasLate())
            {
                steps.add(new Step("the in-flight CAS of " + Values.key(key) + " lands: " +
                    scope.version(slot.lateVersion()) + ":" + slot.late(),
                    write(state, key, slot.lateVersion(), slot.late())));
            }
        }
        return steps;
    }

    /** @return whether the run is over: every actor done or crashed, nothing in flight. */
    boolean finished(final TxnState state)
    {
        for (final Actor actor : state.actors())
        {
            if (!(actor instanceof Actor.Stopped))
            {
                return false;
            }
        }
        for (final Slot slot : state.store().slots())
        {
            if (slot.hasLate())
            {
                return false;
            }
        }
        return true;
    }

    String describe(final TxnState state)
    {
        return state.store().describe(scope);
    }

    private void run(final TxnState state, final int actor, final Action action, final List<Step> steps)
    {
        final String who = scope.actorName(actor) + " " + action.why();
        final Slot slot = state.store().slot(action.key());
        switch (action)
        {
            case Action.Read read -> steps.add(new Step(who + ": " + Values.key(read.key()) + "=" +
                slot.describe(scope), read.then().apply(state, slot)));
            case Action.Cas cas ->
            {
                if (slot.hasLate())
                {
                    return;     // the in-flight compare-and-set lands first
                }
                final int writes = state.actor(actor).writes() + 1;
                final boolean none = cas.desired() instanceof Content.Plain plain && plain.value() == Values.NONE;
                final int version = none && scope.variant().absentHasNoWriteId() ? NO_WRITE_ID :
                    scope.version(actor, writes);
                final String label = who + ": CAS " + Values.key(cas.key()) + " " + scope.version(cas.expected()) +
                    " -> " + scope.version(version) + ":" + cas.desired();
                final boolean matches = slot.version() == cas.expected();
                if (matches)
                {
                    steps.add(new Step(label + ": ok", counted(actor, writes,
                        cas.then().apply(write(state, cas.key(), version, cas.desired()), Outcome.DONE, version))));
                }
                else
                {
                    steps.add(new Step(label + ": failed",
                        counted(actor, writes, cas.then().apply(state, Outcome.FAILED, version))));
                }
                if (state.unknownsLeft() > 0)
                {
                    final TxnState spent = state.unknownSpent();
                    if (matches)
                    {
                        steps.add(new Step(label + ": unknown (it took effect)", counted(actor, writes, cas.then()
                            .apply(write(spent, cas.key(), version, cas.desired()), Outcome.UNKNOWN, version))));
                        final TxnState inFlight = spent.withStore(spent.store().with(cas.key(),
                            slot.withLate(version, cas.desired())), spent.ghost());
                        steps.add(new Step(label + ": unknown (in flight: it lands later)",
                            counted(actor, writes, cas.then().apply(inFlight, Outcome.UNKNOWN, version))));
                    }
                    steps.add(new Step(label + ": unknown (" + (matches ? "it never lands" : "it took no effect") +
                        ")", counted(actor, writes, cas.then().apply(spent, Outcome.UNKNOWN, version))));
                }
            }
        }
    }

    /** @return the state with the actor's write count past the compare-and-set it made: write ids never repeat. */
    private static TxnState counted(final int actor, final int writes, final TxnState next)
    {
        final Actor a = next.actor(actor);
        return a instanceof Actor.Stopped ? next : next.withActor(actor, a.withWrites(writes));
    }

    private TxnState write(final TxnState state, final int key, final int version, final Content content)
    {
        final Store after = state.store().with(key, Slot.of(version, content));
        return state.withStore(after, GhostRules.afterWrite(scope, state, key, content, after));
    }

    /** @return the operation the actor's next step belongs to. */
    private int operation(final int actor, final Actor a)
    {
        return switch (a)
        {
            case GetReader g -> scope.observerOp() + g.index();
            case ReadOnlyReader r -> scope.observerOp();
            case PlainWriter w -> scope.writerOp();
            default -> actor;
        };
    }

    private Op invocation(final int op)
    {
        final KeyInts writes = scope.hasWriter() && op == scope.writerOp() ?
            KeyInts.EMPTY.with(scope.writerKey(), writerValue()) : KeyInts.EMPTY;
        return new Op(Op.PENDING, KeyInts.EMPTY, writes);
    }
}

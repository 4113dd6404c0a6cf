package io.dkv.client.txn;

import java.util.ArrayList;
import java.util.List;

/**
 * One state of the model: the store, each actor's local state, the budgets left, the ghost record the invariants
 * read, and the history so far. Immutable and compared by value, so that the explorer visits each distinct state
 * once; a step makes a new state sharing every part it did not change.
 *
 * @param store        the keys.
 * @param actors       each actor's local state, in the scope's order.
 * @param crashesLeft  how many more coordinators may crash.
 * @param unknownsLeft how many more compare-and-sets may end with an unknown outcome.
 * @param ghost        what the invariants need beyond the store: never read by the protocol's steps.
 * @param history      what the clients saw.
 */
record TxnState(Store store, List<Actor> actors, int crashesLeft, int unknownsLeft, Ghost ghost, TxnHistory history)
{
    Actor actor(final int actor)
    {
        return actors.get(actor);
    }

    TxnState withActor(final int actor, final Actor next)
    {
        final List<Actor> list = new ArrayList<>(actors);
        list.set(actor, next);
        return new TxnState(store, List.copyOf(list), crashesLeft, unknownsLeft, ghost, history);
    }

    TxnState withStore(final Store next, final Ghost nextGhost)
    {
        return new TxnState(next, actors, crashesLeft, unknownsLeft, nextGhost, history);
    }

    TxnState withGhost(final Ghost next)
    {
        return new TxnState(store, actors, crashesLeft, unknownsLeft, next, history);
    }

    TxnState withHistory(final TxnHistory next)
    {
        return new TxnState(store, actors, crashesLeft, unknownsLeft, ghost, next);
    }

    TxnState crashed(final int actor)
    {
        return new TxnState(store, actors, crashesLeft - 1, unknownsLeft, ghost, history)
            .withActor(actor, Actor.Stopped.STOPPED);
    }

    TxnState unknownSpent()
    {
        return new TxnState(store, actors, crashesLeft, unknownsLeft - 1, ghost, history);
    }

    /** @return the state with the operation answered: its status set, its reads and writes kept. */
    TxnState answer(final int op, final int status)
    {
        return withHistory(history.with(op, history.op(op).with(status)));
    }

    /** @return the state with the operation answered and what it read and wrote recorded. */
    TxnState answer(final int op, final int status, final KeyInts reads, final KeyInts writes)
    {
        return withHistory(history.with(op, new Op(status, reads, writes)));
    }

    /** A broken invariant noticed by a step: the first one is kept. */
    TxnState broken(final String why)
    {
        return ghost.broken() != null ? this : withGhost(ghost.withBroken(why));
    }
}

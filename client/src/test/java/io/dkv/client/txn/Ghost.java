package io.dkv.client.txn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the invariants need to know of the past that the store no longer shows: per transaction, whether its primary
 * was ever swapped in, which secondaries were, how it was decided, and whether every key it read only still held the
 * version read at its serialization point; and the first broken invariant a step noticed. The protocol's steps never
 * read it.
 *
 * @param txns   per coordinator's transaction, T1 first.
 * @param broken the first invariant a step broke, or null.
 */
record Ghost(List<Txn> txns, String broken)
{
    static final int UNDECIDED = 0;
    static final int COMMITTED = 1;
    static final int ABORTED = 2;

    /**
     * @param primaryPlaced whether its primary intent was ever swapped in.
     * @param placed        the secondaries ever swapped in, a bit per key.
     * @param outcome       {@link #UNDECIDED}, {@link #COMMITTED} or {@link #ABORTED}: how its PENDING word went.
     * @param serialized    whether its serialization point has passed: every key it writes held its intent at once.
     * @param clean         whether, at that point, every key it read only held the version read.
     */
    record Txn(boolean primaryPlaced, int placed, int outcome, boolean serialized, boolean clean)
    {
        static final Txn NEW = new Txn(false, 0, UNDECIDED, false, false);
    }

    static Ghost initial(final int txns)
    {
        return new Ghost(Collections.nCopies(txns, Txn.NEW), null);
    }

    /** @param txn the transaction, from 1. */
    Txn txn(final int txn)
    {
        return txns.get(txn - 1);
    }

    Ghost with(final int txn, final Txn next)
    {
        final List<Txn> list = new ArrayList<>(txns);
        list.set(txn - 1, next);
        return new Ghost(List.copyOf(list), broken);
    }

    Ghost withBroken(final String why)
    {
        return broken != null ? this : new Ghost(txns, why);
    }
}

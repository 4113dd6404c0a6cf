package io.dkv.client.txn;

import io.dkv.client.txn.Content.Intent;
import io.dkv.client.txn.Content.Plain;

/**
 * The invariants at a state (the draft's "Invariants"): those a step broke as it wrote (kept by {@link GhostRules}),
 * and that a committed transaction's primary outlives every secondary intent it left; at most one intent per key holds
 * by construction (a key holds one content). And the value rules at rest, which say what each key holds once every
 * client is done.
 */
final class TxnInvariants
{
    private TxnInvariants()
    {
    }

    /** @return why the state breaks an invariant, or null when it keeps them all. */
    static String violated(final TxnState state)
    {
        if (state.ghost().broken() != null)
        {
            return state.ghost().broken();
        }
        final Store store = state.store();
        for (int key = 0; key < store.keys(); key++)
        {
            if (store.slot(key).content() instanceof Intent intent && !intent.primary() &&
                state.ghost().txn(intent.txn()).outcome() == Ghost.COMMITTED &&
                !(store.slot(intent.primaryKey()).content() instanceof Intent primary &&
                primary.txn() == intent.txn() && (primary.committed() || primary.stagingPrimary())))
            {
                return "committed T" + intent.txn() + "'s intent at " + Values.key(key) + " outlived its primary " +
                    "(invariant 3)";
            }
        }
        return null;
    }

    /**
     * The keys' values once every client is done, read by the value rules: a PENDING primary counts as aborted, as
     * the first reader to give up waiting would make it; a STAGING record as the STAGING check finds it: committed
     * when every secondary it lists holds its transaction's intent, else aborted.
     */
    static KeyInts atRest(final Store store)
    {
        KeyInts values = KeyInts.EMPTY;
        for (int key = 0; key < store.keys(); key++)
        {
            values = values.with(key, valueAtRest(store, store.slot(key).content()));
        }
        return values;
    }

    private static int valueAtRest(final Store store, final Content content)
    {
        if (content instanceof Plain plain)
        {
            return plain.value();
        }
        final Intent intent = (Intent)content;
        final boolean committed = store.slot(intent.primaryKey()).content() instanceof Intent primary &&
            primary.txn() == intent.txn() && primary.primary() &&
            (primary.committed() || primary.stagingPrimary() && everyIntentIn(store, primary));
        return committed ? intent.newValue() : intent.prior();
    }

    private static boolean everyIntentIn(final Store store, final Intent staging)
    {
        for (int key = 0; key < store.keys(); key++)
        {
            if ((staging.secondaries() & (1 << key)) != 0 &&
                !store.slot(key).content().isIntentOf(staging.txn(), false))
            {
                return false;
            }
        }
        return true;
    }
}

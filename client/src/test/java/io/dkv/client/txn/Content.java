package io.dkv.client.txn;

/**
 * What a key holds: a plain value (or none), or an intent of one transaction (the draft's "Rules"). An intent carries
 * both the value it writes and the value it replaced, so that whoever meets it can finish or undo it from what it
 * holds alone.
 */
sealed interface Content permits Content.Plain, Content.Intent
{
    /**
     * A plain value.
     *
     * @param value the value, or {@link Values#NONE}: the key holds nothing.
     */
    record Plain(int value) implements Content
    {
        @Override
        public String toString()
        {
            return Values.show(value);
        }
    }

    /**
     * An intent of transaction {@code txn}.
     *
     * @param txn         the transaction (1 for T1).
     * @param primary     whether this is the transaction's primary, where its outcome lives.
     * @param committed   a primary's state: COMMITTED, or PENDING (or STAGING); false for a secondary.
     * @param staging     parallel commit: a primary's STAGING state, swapped in at once with the secondaries, under
     *                    which the transaction is committed exactly when every one of its intents is in.
     * @param newValue    the value the transaction writes here.
     * @param prior       the value the intent replaced.
     * @param primaryKey  the key of the transaction's primary.
     * @param secondaries a committed or STAGING primary's list of the transaction's secondary keys, one bit a key;
     *                    else 0.
     * @param expected    parallel commit only, else empty: a STAGING (then COMMITTED) primary's list of the write id
     *                    each secondary's compare-and-set expects, per key; a secondary's, at its primary's key, the
     *                    write id the primary's compare-and-set expects.
     */
    record Intent(int txn, boolean primary, boolean committed, boolean staging, int newValue, int prior,
        int primaryKey, int secondaries, KeyInts expected) implements Content
    {
        static Intent pending(final int txn, final int key, final int newValue, final int prior)
        {
            return new Intent(txn, true, false, false, newValue, prior, key, 0, KeyInts.EMPTY);
        }

        static Intent committed(final int txn, final int key, final int newValue, final int prior,
            final int secondaries)
        {
            return new Intent(txn, true, true, false, newValue, prior, key, secondaries, KeyInts.EMPTY);
        }

        static Intent secondary(final int txn, final int primaryKey, final int newValue, final int prior)
        {
            return new Intent(txn, false, false, false, newValue, prior, primaryKey, 0, KeyInts.EMPTY);
        }

        /** @param expected the write id each secondary's compare-and-set expects, per key. */
        static Intent staging(final int txn, final int key, final int newValue, final int prior,
            final int secondaries, final KeyInts expected)
        {
            return new Intent(txn, true, false, true, newValue, prior, key, secondaries, expected);
        }

        /** @param primaryExpects the write id the primary's compare-and-set expects. */
        static Intent parallelSecondary(final int txn, final int primaryKey, final int newValue, final int prior,
            final int primaryExpects)
        {
            return new Intent(txn, false, false, false, newValue, prior, primaryKey, 0,
                KeyInts.EMPTY.with(primaryKey, primaryExpects));
        }

        /** @return a STAGING record decided: the same record, its state COMMITTED. */
        Intent decidedCommitted()
        {
            return new Intent(txn, true, true, false, newValue, prior, primaryKey, secondaries, expected);
        }

        boolean pendingPrimary()
        {
            return primary && !committed && !staging;
        }

        boolean stagingPrimary()
        {
            return primary && staging;
        }

        /** @return whether its transaction commits in parallel (STAGING), by the write ids its intents name. */
        boolean parallel()
        {
            return !expected.isEmpty();
        }

        /** @return the write id the compare-and-set of T's intent at the key expects, as this intent lists it. */
        int expects(final int key)
        {
            return expected.get(key);
        }

        @Override
        public String toString()
        {
            final String role = primary ? (committed ? "COMMITTED" : staging ? "STAGING" : "PENDING") :
                "secondary of " + Values.key(primaryKey);
            return "T" + txn + " " + role + " " + Values.show(newValue) + "<-" + Values.show(prior);
        }
    }

    /** @return whether this is an intent of transaction {@code txn} in the role asked. */
    default boolean isIntentOf(final int txn, final boolean primary)
    {
        return this instanceof Intent intent && intent.txn() == txn && intent.primary() == primary;
    }
}

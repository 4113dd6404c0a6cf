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
     * @param committed   a primary's state: COMMITTED, or PENDING; false for a secondary.
     * @param newValue    the value the transaction writes here.
     * @param prior       the value the intent replaced.
     * @param primaryKey  the key of the transaction's primary.
     * @param secondaries a committed primary's list of the transaction's secondary keys, one bit a key; else 0.
     */
    record Intent(int txn, boolean primary, boolean committed, int newValue, int prior, int primaryKey, int secondaries)
        implements Content
    {
        static Intent pending(final int txn, final int key, final int newValue, final int prior)
        {
            return new Intent(txn, true, false, newValue, prior, key, 0);
        }

        static Intent committed(final int txn, final int key, final int newValue, final int prior,
            final int secondaries)
        {
            return new Intent(txn, true, true, newValue, prior, key, secondaries);
        }

        static Intent secondary(final int txn, final int primaryKey, final int newValue, final int prior)
        {
            return new Intent(txn, false, false, newValue, prior, primaryKey, 0);
        }

        boolean pendingPrimary()
        {
            return primary && !committed;
        }

        @Override
        public String toString()
        {
            final String role = primary ? (committed ? "COMMITTED" : "PENDING") :
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

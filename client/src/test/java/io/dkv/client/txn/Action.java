package io.dkv.client.txn;

/**
 * The one atomic register operation an actor may take next, and what follows from its result: a read of one key, or
 * a compare-and-set of one key from an expected version. The model runs it against the store, branching on every
 * outcome the scope allows, and calls the continuation with the state after it.
 */
sealed interface Action permits Action.Read, Action.Cas
{
    /** How a compare-and-set ended, as its client learns it. */
    enum Outcome
    {
        /** It took effect. */
        DONE,
        /** It took no effect: the key no longer held the expected version. */
        FAILED,
        /** A replica failed mid-chain: it took effect, or will before the key's next change, or never. */
        UNKNOWN
    }

    /** What the continuation of a read does with the slot read. */
    @FunctionalInterface
    interface AfterRead
    {
        TxnState apply(TxnState state, Slot slot);
    }

    /** What the continuation of a compare-and-set does with its outcome and the write id it used. */
    @FunctionalInterface
    interface AfterCas
    {
        TxnState apply(TxnState state, Outcome outcome, int version);
    }

    /** @return the purpose, for the counterexample's trace. */
    String why();

    int key();

    record Read(String why, int key, AfterRead then) implements Action
    {
    }

    record Cas(String why, int key, int expected, Content desired, AfterCas then) implements Action
    {
    }
}

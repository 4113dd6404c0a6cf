package io.dkv.client.txn;

/**
 * A coordinator's local state while it runs its one transaction.
 *
 * @param phase        where it is.
 * @param lookup       while executing: where it is in reading the current key; else null.
 * @param readVersions the version read per key (the keys written but never read are read before the intents).
 * @param readValues   the value read per key.
 * @param mine         the write id of its intent per key whose compare-and-set took, or may have taken, effect; the
 *                     primary's is the PENDING word until the decision, then the COMMITTED one.
 * @param left         the keys the current phase still has to do, a bit per key.
 * @param placed       the keys whose intent took, or may have taken, effect.
 * @param failed       whether a compare-and-set of the intents failed or ended unknown: the transaction aborts.
 * @param writes       its writes so far.
 */
record Coordinator(Phase phase, Lookup lookup, KeyInts readVersions, KeyInts readValues, KeyInts mine, int left,
    int placed, boolean failed, int writes) implements Actor
{
    /** The coordinator's phases (the draft's "Rules"). */
    enum Phase
    {
        /** Reads, through intents; then the keys written but never read. */
        EXECUTE,
        /** Swaps its intents in: the primary, then the secondaries at once. */
        INTENTS,
        /** Reads the keys read but not written again. */
        VALIDATE,
        /** The commit: the primary from PENDING to COMMITTED. */
        DECIDE,
        /** Broken variant only: secondaries swapped in after the decision. */
        LATE_SECONDARIES,
        /** Each secondary to its new value, then the primary. */
        RESOLVE,
        /** The primary from PENDING to its prior value. */
        ABORT,
        /** Each secondary swapped in back to its prior value. */
        ROLLBACK
    }

    static Coordinator start(final int firstKey)
    {
        return new Coordinator(Phase.EXECUTE, Lookup.read(firstKey), KeyInts.EMPTY, KeyInts.EMPTY, KeyInts.EMPTY, 0,
            0, false, 0);
    }

    Coordinator reading(final Lookup next)
    {
        return new Coordinator(phase, next, readVersions, readValues, mine, left, placed, failed, writes);
    }

    Coordinator read(final int key, final int value, final int version, final Lookup next)
    {
        return new Coordinator(phase, next, readVersions.with(key, version), readValues.with(key, value), mine, left,
            placed, failed, writes);
    }

    Coordinator at(final Phase next, final int nextLeft)
    {
        return new Coordinator(next, null, readVersions, readValues, mine, nextLeft, placed, failed, writes);
    }

    /** @return it after a compare-and-set of its intent at the key, which took, or may have taken, effect or not. */
    Coordinator swapped(final int key, final int version, final boolean mayHaveLanded, final boolean fails)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mayHaveLanded ? mine.with(key, version) : mine,
            left & ~(1 << key), mayHaveLanded ? placed | 1 << key : placed, failed || fails, writes);
    }

    Coordinator mine(final int key, final int version)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine.with(key, version), left, placed, failed,
            writes);
    }

    @Override
    public Actor withWrites(final int writes)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine, left, placed, failed, writes);
    }
}

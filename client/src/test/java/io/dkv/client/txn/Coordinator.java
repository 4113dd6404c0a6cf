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
 * @param failed       whether a compare-and-set of the intents failed or ended unknown: the transaction aborts. In
 *                     parallel commit only a failed one: that intent can never be in, so the transaction never
 *                     commits.
 * @param unsure       parallel commit: the keys whose intent's compare-and-set ended unknown, tried again from the
 *                     same version while in {@code left}, then read to learn whether the key holds the intent.
 * @param doubt        parallel commit: an intent was settled as not in, though it may have been in and been
 *                     resolved or rolled back since by whoever recovered the transaction: its outcome is not the
 *                     coordinator's to know.
 * @param writes       its writes so far.
 */
record Coordinator(Phase phase, Lookup lookup, KeyInts readVersions, KeyInts readValues, KeyInts mine, int left,
    int placed, boolean failed, int unsure, boolean doubt, int writes) implements Actor
{
    /** The coordinator's phases (the draft's "Rules"). */
    enum Phase
    {
        /** Reads, through intents; then the keys written but never read. */
        EXECUTE,
        /** Swaps its intents in: the primary, then the secondaries at once. */
        INTENTS,
        /**
         * Parallel commit: swaps every intent in at once, the primary's a STAGING record; tries one of unknown outcome
         * again, and reads the key when that fails.
         */
        STAGE,
        /** Reads the keys read but not written again. */
        VALIDATE,
        /** The commit: the primary from PENDING to COMMITTED (parallel commit: from STAGING, once committed). */
        DECIDE,
        /** Broken variant only: secondaries swapped in after the decision. */
        LATE_SECONDARIES,
        /** Each secondary to its new value, then the primary. */
        RESOLVE,
        /** The primary from PENDING (or STAGING) to its prior value. */
        ABORT,
        /** Each secondary swapped in back to its prior value. */
        ROLLBACK
    }

    static Coordinator start(final int firstKey)
    {
        return new Coordinator(Phase.EXECUTE, Lookup.read(firstKey), KeyInts.EMPTY, KeyInts.EMPTY, KeyInts.EMPTY, 0,
            0, false, 0, false, 0);
    }

    Coordinator reading(final Lookup next)
    {
        return new Coordinator(phase, next, readVersions, readValues, mine, left, placed, failed, unsure, doubt,
            writes);
    }

    Coordinator read(final int key, final int value, final int version, final Lookup next)
    {
        return new Coordinator(phase, next, readVersions.with(key, version), readValues.with(key, value), mine, left,
            placed, failed, unsure, doubt, writes);
    }

    Coordinator at(final Phase next, final int nextLeft)
    {
        return new Coordinator(next, null, readVersions, readValues, mine, nextLeft, placed, failed, unsure, doubt,
            writes);
    }

    /** @return it after a compare-and-set of its intent at the key, which took, or may have taken, effect or not. */
    Coordinator swapped(final int key, final int version, final boolean mayHaveLanded, final boolean fails)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mayHaveLanded ? mine.with(key, version) : mine,
            left & ~(1 << key), mayHaveLanded ? placed | 1 << key : placed, failed || fails, unsure & ~(1 << key),
            doubt, writes);
    }

    /** @return it after a compare-and-set of its intent at the key whose outcome is unknown: to be tried again. */
    Coordinator unsureOf(final int key)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine, left, placed, failed, unsure | 1 << key,
            doubt, writes);
    }

    /** @return it after the compare-and-set tried again at an unsure key failed: the key is to be read. */
    Coordinator toConfirm(final int key)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine, left & ~(1 << key), placed, failed,
            unsure, doubt, writes);
    }

    /** @return it once an unsure key read holds something else than its intent: settled as not in, in doubt. */
    Coordinator doubted(final int key)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine, left, placed, failed,
            unsure & ~(1 << key), true, writes);
    }

    Coordinator mine(final int key, final int version)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine.with(key, version), left, placed, failed,
            unsure, doubt, writes);
    }

    @Override
    public Actor withWrites(final int writes)
    {
        return new Coordinator(phase, lookup, readVersions, readValues, mine, left, placed, failed, unsure, doubt,
            writes);
    }
}

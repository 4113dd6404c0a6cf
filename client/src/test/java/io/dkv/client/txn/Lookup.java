package io.dkv.client.txn;

/**
 * Where an actor is in reading one key through whatever intent it meets (the draft's "Reading through an intent"):
 * the sub-machine every read of the model runs, a step per register operation.
 *
 * @param key          the key being read.
 * @param phase        what comes next.
 * @param version      the version of the intent met at the key (or of the committed primary being resolved, or of
 *                     the STAGING record being checked).
 * @param seen         that intent (that record); while waiting, what is waited on: null for a PENDING word, the
 *                     STAGING record, or the secondary whose primary still holds the write id it expects.
 * @param left         while resolving a committed primary: the secondaries still to resolve, a bit per key; while
 *                     checking a STAGING record, those still to read.
 * @param other        the key waited on (WAIT), the secondary being resolved (SECONDARY_CAS) or fenced (FENCE).
 * @param otherVersion its version: the word waited on, the secondary intent's, or the write id a STAGING record
 *                     expects there.
 * @param value        the value a push or a fence (WAIT), a settle (SETTLE), a secondary's resolution
 *                     (SECONDARY_CAS) or a fence (FENCE) writes.
 */
record Lookup(int key, Phase phase, int version, Content.Intent seen, int left, int other, int otherVersion,
    int value)
{
    /** The register operation a lookup takes next. */
    enum Phase
    {
        /** Read the key. */
        READ,
        /** The key holds a secondary intent: read its transaction's primary. */
        PRIMARY,
        /** The primary holds something else: read the key again; the same intent means its transaction aborted. */
        RECHECK,
        /** Swap the key's intent for its outcome's value (rolled forward or back), then read again. */
        SETTLE,
        /** A PENDING primary stands: read again once it moves, or push it (abort) at any time. */
        WAIT,
        /** A COMMITTED primary: read each secondary in turn, to resolve it before the primary. */
        SECONDARIES,
        /** Swap one secondary of the committed primary for its new value. */
        SECONDARY_CAS,
        /**
         * Parallel commit, after the push time: the STAGING check. Read the next secondary the record lists; none left
         * (each held the transaction's intent), decide the record COMMITTED.
         */
        CHECK,
        /**
         * A secondary that neither holds the transaction's intent nor has moved on from the write id its
         * compare-and-set expects: fence it (its value again, a new write id), then read it again.
         */
        FENCE,
        /** A secondary's intent can never be in: abort the STAGING record, to its prior value. */
        STAGING_ABORT
    }

    static Lookup read(final int key)
    {
        return new Lookup(key, Phase.READ, 0, null, 0, 0, 0, 0);
    }

    static Lookup primary(final int key, final int version, final Content.Intent seen)
    {
        return new Lookup(key, Phase.PRIMARY, version, seen, 0, 0, 0, 0);
    }

    static Lookup recheck(final int key, final int version, final Content.Intent seen)
    {
        return new Lookup(key, Phase.RECHECK, version, seen, 0, 0, 0, 0);
    }

    static Lookup settle(final int key, final int version, final int value)
    {
        return new Lookup(key, Phase.SETTLE, version, null, 0, 0, 0, value);
    }

    static Lookup waiting(final int key, final int primaryKey, final int pendingVersion, final int prior)
    {
        return new Lookup(key, Phase.WAIT, 0, null, 0, primaryKey, pendingVersion, prior);
    }

    /**
     * @param version the version of the secondary intent met at the key, when its primary is waited on; else 0.
     * @param on      what is waited on: the STAGING record at {@code waited}, or the secondary whose primary, at
     *                {@code waited}, still holds the write id it expects.
     * @param value   what a fence of the primary writes: the value it holds.
     */
    static Lookup waitingOn(final int key, final int version, final int waited, final int waitedVersion,
        final Content.Intent on, final int value)
    {
        return new Lookup(key, Phase.WAIT, version, on, 0, waited, waitedVersion, value);
    }

    static Lookup check(final int key, final int stagingVersion, final Content.Intent staging)
    {
        return new Lookup(key, Phase.CHECK, stagingVersion, staging, staging.secondaries(), 0, 0, 0);
    }

    Lookup checking(final int rest)
    {
        return new Lookup(key, Phase.CHECK, version, seen, rest, 0, 0, 0);
    }

    Lookup fencing(final int secondary, final int expected, final int secondaryValue)
    {
        return new Lookup(key, Phase.FENCE, version, seen, left, secondary, expected, secondaryValue);
    }

    Lookup abortingStaging()
    {
        return new Lookup(key, Phase.STAGING_ABORT, version, seen, 0, 0, 0, 0);
    }

    static Lookup secondaries(final int key, final int version, final Content.Intent committed, final int left)
    {
        return new Lookup(key, Phase.SECONDARIES, version, committed, left, 0, 0, 0);
    }

    Lookup resolving(final int secondary, final int secondaryVersion, final int newValue)
    {
        return new Lookup(key, Phase.SECONDARY_CAS, version, seen, left, secondary, secondaryVersion, newValue);
    }

    Lookup secondariesLeft(final int rest)
    {
        return secondaries(key, version, seen, rest);
    }
}

package io.dkv.client.txn;

/**
 * Where an actor is in reading one key through whatever intent it meets (the draft's "Reading through an intent"):
 * the sub-machine every read of the model runs, a step per register operation.
 *
 * @param key          the key being read.
 * @param phase        what comes next.
 * @param version      the version of the intent met at the key (or of the committed primary being resolved).
 * @param seen         that intent.
 * @param left         while resolving a committed primary: the secondaries still to resolve, a bit per key.
 * @param other        the key waited on (WAIT) or the secondary being resolved (SECONDARY_CAS).
 * @param otherVersion its version: the PENDING word waited on, or the secondary intent's.
 * @param value        the value a push (WAIT), a settle (SETTLE) or a secondary's resolution (SECONDARY_CAS) writes.
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
        SECONDARY_CAS
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

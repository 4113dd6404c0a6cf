package io.dkv.client.txn;

/**
 * The commit protocol (client/README.md, "Transactions"), its draft as first written, and deliberately broken
 * forms of it that the checker must catch.
 */
enum TxnVariant
{
    /**
     * The protocol: the draft's rules, and a compare-and-set that resolves (a secondary rolled forward or back, an
     * abort) whose outcome is unknown is tried again from the same version until its outcome is known (the retry
     * fails once the first landed), so that a committed transaction's primary is resolved only after each of its
     * secondaries is known to be.
     */
    PROTOCOL,

    /**
     * The draft as written: it says what an unknown outcome means in Commit's steps 1 to 4 only, so a resolution whose
     * outcome is unknown is taken as done and the primary is resolved next.
     */
    AS_DRAFTED,

    /** Broken: the commit does not read the keys read but not written again. */
    VALIDATION_SKIPPED,

    /** Broken: a get that meets a PENDING intent answers the value it replaced instead of waiting. */
    READ_PRIOR_WHILE_PENDING,

    /** Broken: the primary is decided COMMITTED before the secondaries are swapped in. */
    COMMITTED_BEFORE_WHOLE,

    /** Broken: the primary and the secondaries are swapped in at once, in any order. */
    SECONDARIES_BEFORE_PRIMARY,

    /** Broken: a committed transaction's primary is resolved to its plain value before its secondaries. */
    PRIMARY_RESOLVED_FIRST,

    /** Broken: a put that meets a PENDING intent replaces it without resolving it. */
    WRITER_OVERWRITES_PENDING,

    /** Broken: nobody gives up waiting on a PENDING primary, so nobody aborts a crashed coordinator's transaction. */
    NO_PUSH;

    /** @return whether a resolution whose outcome is unknown is tried again until known. */
    boolean settlesUnknownOutcomes()
    {
        return this != AS_DRAFTED;
    }
}

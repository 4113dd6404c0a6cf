package io.dkv.client.txn;

/**
 * The commit protocol (client/README.md, "Transactions"), its draft as first written, and deliberately broken
 * forms of it that the checker must catch; and the proposed parallel commit (STAGING), as first proposed, as fixed,
 * and broken forms of it.
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
    NO_PUSH,

    /**
     * Parallel commit, as fixed: a transaction that reads no key it does not write (and writes more than one) swaps
     * its primary's STAGING record and each secondary's intent in at once, and is committed exactly when every one of
     * them is in: the coordinator answers then, decides the record COMMITTED explicitly, and resolves as the protocol
     * does. An intent's compare-and-set of unknown outcome is tried again from the same version until known, and one
     * that then fails is settled by reading the key: T's intent there is in; anything else leaves T's outcome to its
     * primary, which the coordinator aborts from its STAGING word or, that failing, answers unknown. Whoever meets an
     * intent of such a transaction recovers it by the write ids its intents name, fencing a key that still holds the
     * one a compare-and-set of T expects. Other transactions keep the protocol.
     */
    PARALLEL_COMMIT,

    /**
     * Parallel commit as first proposed: an intent's compare-and-set of unknown outcome is settled as the protocol
     * settles it, by aborting the transaction at its primary, and a failed abort means someone else aborted it.
     */
    PARALLEL_AS_PROPOSED,

    /**
     * Broken fix of the proposal: an intent settled as not in is taken as failed, so that once the coordinator's abort
     * at the STAGING word misses it answers failed and rolls back, as if someone else had aborted the transaction.
     */
    PARALLEL_DOUBT_TAKEN_AS_FAILED,

    /** Broken: the coordinator resolves its secondaries while its primary is still STAGING, deciding nothing first. */
    PARALLEL_RESOLVED_WHILE_STAGING,

    /**
     * Broken: the STAGING check aborts the transaction at a secondary that does not hold its intent but still holds
     * the write id its compare-and-set expects, without fencing it first.
     */
    PARALLEL_ABORT_UNFENCED,

    /**
     * Broken: recovery at a secondary takes a primary that still holds the write id the primary's compare-and-set
     * expects as aborted, and rolls the secondary back without fencing the primary first.
     */
    PARALLEL_ROLLBACK_UNFENCED,

    /** Broken: the coordinator answers committed once its primary's STAGING record is in, before every secondary. */
    PARALLEL_ANSWER_BEFORE_WHOLE,

    /**
     * Parallel commit on the store as dkv has it: a key with no value has no write id (a rollback or a fence to no
     * value, a delete, an expiry leave it without one, and a compare-and-set from none, an insert, lands whenever the
     * key has none), so a key can come back to the version a transaction's compare-and-set expects.
     */
    PARALLEL_ABSENT_WITHOUT_WRITE_ID,

    /**
     * Parallel commit on that store, as fixed: only a transaction that read each key it writes holding a value, so a
     * write id, commits in parallel; one that writes a key it found with none keeps the protocol.
     */
    PARALLEL_COMMIT_OF_PRESENT_KEYS;

    /** @return whether a resolution whose outcome is unknown is tried again until known. */
    boolean settlesUnknownOutcomes()
    {
        return this != AS_DRAFTED;
    }

    /** @return whether a key with no value has no write id, as in dkv's store: its version is that of none. */
    boolean absentHasNoWriteId()
    {
        return this == PARALLEL_ABSENT_WITHOUT_WRITE_ID || this == PARALLEL_COMMIT_OF_PRESENT_KEYS;
    }

    /** @return whether only a transaction that read a write id at each key it writes commits in parallel. */
    boolean parallelNeedsWriteIds()
    {
        return this == PARALLEL_COMMIT_OF_PRESENT_KEYS;
    }

    /** @return whether transactions that read no key they do not write commit in parallel (STAGING). */
    boolean parallelCommit()
    {
        return compareTo(PARALLEL_COMMIT) >= 0;
    }
}

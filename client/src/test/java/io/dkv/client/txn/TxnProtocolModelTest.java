package io.dkv.client.txn;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static io.dkv.client.txn.TxnScope.NO_WRITER;
import static io.dkv.client.txn.TxnScope.Observer.GETS;
import static io.dkv.client.txn.TxnScope.Observer.READ_ONLY;
import static io.dkv.client.txn.Values.NONE;
import static io.dkv.client.txn.Values.X;
import static io.dkv.client.txn.Values.Y;
import static io.dkv.client.txn.Values.Z;
import static io.dkv.client.txn.Workload.APPEND_XY;
import static io.dkv.client.txn.Workload.APPEND_XYZ;
import static io.dkv.client.txn.Workload.APPEND_YX;
import static io.dkv.client.txn.Workload.MSET_XY;
import static io.dkv.client.txn.Workload.SKEW_X;
import static io.dkv.client.txn.Workload.SKEW_Y;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transaction commit protocol (client/README.md, "Transactions") explored exhaustively in small scopes, a key
 * a linearizable register with compare-and-set by version (what the replication layer, checked by its own model,
 * gives): one or two coordinators running a transaction each (both appending to x and y, as a transfer does; write
 * skew's two halves; two blind writes; two or three keys, either primary), with a reader (two gets, or a read-only
 * transaction) and a single-key writer; with and without the crash of a coordinator at any step, and a
 * compare-and-set, anyone's, whose outcome its client does not learn. Every interleaving yields a strictly
 * serializable history, leaves the keys at rest as a serial order of it does, keeps the invariants, and can finish;
 * and the same checker catches broken forms of the protocol, each with a shortest trace that shows it.
 *
 * <p>The same for the proposed parallel commit ({@link TxnVariant#PARALLEL_COMMIT}): a transaction that reads no key
 * it does not write swaps its primary's STAGING record and every secondary's intent in at once and is committed once
 * all are in, answered after one round of compare-and-sets; the rest keep the protocol. Its first proposal and broken
 * forms of it are caught, and so is the proposal on a store where a key with no value has no write id, as dkv's has.
 */
class TxnProtocolModelTest
{
    static List<TxnScope> scopes()
    {
        return List.of(
            // the scope of the draft's counterexample (a resolution of unknown outcome), with the protocol's fix
            scope(List.of(APPEND_XY), GETS, NO_WRITER, 0, 1),
            // workload (a): both read x and y and append to both
            scope(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 0, 0),
            scope(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 1, 0),
            scope(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 0, 1),
            scope(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 1, 1),
            scope(List.of(APPEND_XY, APPEND_XY), READ_ONLY, NO_WRITER, 0, 0),
            scope(List.of(APPEND_XY, APPEND_XY), READ_ONLY, NO_WRITER, 1, 0),
            // one's primary is the other's secondary
            scope(List.of(APPEND_XY, APPEND_YX), GETS, NO_WRITER, 1, 0),
            // workload (b): write skew, which validation must stop
            scope(List.of(SKEW_X, SKEW_Y), GETS, NO_WRITER, 0, 0),
            scope(List.of(SKEW_X, SKEW_Y), GETS, NO_WRITER, 1, 1),
            scope(List.of(SKEW_X, SKEW_Y), READ_ONLY, NO_WRITER, 1, 1),
            scope(List.of(SKEW_X), GETS, Y, 1, 1),
            // workload (c): blind writes of x and y, read at commit
            scope(List.of(MSET_XY, MSET_XY), GETS, NO_WRITER, 1, 0),
            // a put that meets the intents, at the primary and at the secondary
            scope(List.of(APPEND_XY), GETS, X, 1, 1),
            scope(List.of(APPEND_XY), GETS, Y, 1, 1),
            // two secondaries, swapped in at once
            scope(List.of(APPEND_XYZ), GETS, Z, 1, 1),
            scope(List.of(APPEND_XYZ, APPEND_XY), GETS, NO_WRITER, 0, 0));
    }

    /**
     * Parallel commit over the scopes above that fit (two coordinators with unknown outcomes, and three keys beside a
     * second coordinator, without the gets), with two intents in flight when a coordinator crashes, beside a
     * transaction of the protocol, and on a store where a key with no value has no write id (as fixed).
     */
    static List<TxnScope> parallelScopes()
    {
        return List.of(
            // one transaction: an intent's compare-and-set of unknown outcome; two in flight at a crash
            parallel(List.of(APPEND_XY), GETS, NO_WRITER, 0, 1),
            parallel(List.of(APPEND_XY), GETS, NO_WRITER, 1, 2),
            parallel(List.of(APPEND_XY), READ_ONLY, NO_WRITER, 1, 1),
            // workload (a): both read x and y and append to both, recovering each other's transactions
            parallel(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 0, 0),
            parallel(List.of(APPEND_XY, APPEND_XY), TxnScope.Observer.NONE, NO_WRITER, 1, 1),
            parallel(List.of(APPEND_XY, APPEND_XY), READ_ONLY, NO_WRITER, 0, 0),
            // one's primary is the other's secondary
            parallel(List.of(APPEND_XY, APPEND_YX), GETS, NO_WRITER, 1, 0),
            parallel(List.of(APPEND_XY, APPEND_YX), TxnScope.Observer.NONE, NO_WRITER, 1, 1),
            // workload (c): blind writes of x and y
            parallel(List.of(MSET_XY, MSET_XY), GETS, NO_WRITER, 1, 0),
            parallel(List.of(MSET_XY, MSET_XY), TxnScope.Observer.NONE, NO_WRITER, 1, 1),
            // a put that meets the intents, at the primary and at the secondary: it fences and recovers
            parallel(List.of(APPEND_XY), GETS, X, 1, 1),
            parallel(List.of(APPEND_XY), GETS, Y, 1, 1),
            // two secondaries, staged at once with the primary
            parallel(List.of(APPEND_XYZ), GETS, Z, 1, 0),
            parallel(List.of(APPEND_XYZ), GETS, NO_WRITER, 1, 2),
            parallel(List.of(APPEND_XYZ), TxnScope.Observer.NONE, Z, 1, 1),
            parallel(List.of(APPEND_XYZ, APPEND_XY), TxnScope.Observer.NONE, NO_WRITER, 1, 1),
            // beside write skew's half, which keeps the protocol (it reads y, which it does not write)
            parallel(List.of(APPEND_XY, SKEW_Y), GETS, NO_WRITER, 1, 0),
            // a key with no value has no write id: only a transaction that read a value at each key it writes
            // commits in parallel
            parallel(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 0, 0)
                .with(TxnVariant.PARALLEL_COMMIT_OF_PRESENT_KEYS),
            parallel(List.of(APPEND_XY, APPEND_YX), TxnScope.Observer.NONE, NO_WRITER, 1, 1)
                .with(TxnVariant.PARALLEL_COMMIT_OF_PRESENT_KEYS),
            parallel(List.of(APPEND_XY), GETS, Y, 1, 1).with(TxnVariant.PARALLEL_COMMIT_OF_PRESENT_KEYS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({"scopes", "parallelScopes"})
    void everyInterleavingIsStrictlySerializableAtomicKeepsTheInvariantsAndCanFinish(final TxnScope scope)
    {
        final TxnExplorer.Result result = TxnExplorer.explore(scope, true);
        System.out.println(result);
        assertTrue(result.holds(), result::toString);
        assertTrue(result.finished() > 0, "nothing explored: " + result);
    }

    @Test
    void skippingValidationIsCaughtAsWriteSkew()
    {
        final TxnScope scope = scope(List.of(SKEW_X, SKEW_Y), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.VALIDATION_SKIPPED);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "(invariant 4)");
    }

    /**
     * A get that answers a PENDING intent's prior value orders itself before the transaction, which must then come
     * before a put the get followed in real time, though the transaction read that key's value before the put.
     */
    @Test
    void answeringThePriorValueOfAPendingIntentIsCaughtAsAStaleRead()
    {
        final TxnScope scope = scope(List.of(SKEW_X), GETS, Y, 0, 0).with(TxnVariant.READ_PRIOR_WHILE_PENDING);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "(invariant 5)");
    }

    @Test
    void decidingBeforeEverySecondaryIsSwappedInIsCaughtAsAFracturedRead()
    {
        final TxnScope scope = scope(List.of(APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.COMMITTED_BEFORE_WHOLE);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "committed before every key it writes held its intent (invariant 4)");
    }

    /** A reader that resolves a secondary whose primary is not there yet rolls it back: the commit then loses it. */
    @Test
    void swappingSecondariesInBeforeThePrimaryIsCaughtAsALostWrite()
    {
        final TxnScope scope = scope(List.of(APPEND_XY), READ_ONLY, NO_WRITER, 0, 0)
            .with(TxnVariant.SECONDARIES_BEFORE_PRIMARY);
        assertCaught(scope, false, "not atomic");
        assertCaught(scope, true, "swapped in before its primary (invariant 1)");
    }

    @Test
    void resolvingThePrimaryFirstIsCaughtAsACommittedTransactionReadAsAborted()
    {
        final TxnScope scope = scope(List.of(APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.PRIMARY_RESOLVED_FIRST);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "the primary must outlive them (invariant 3)");
    }

    /**
     * A blind put over a PENDING intent leaves every history serializable in these scopes (the decision's
     * compare-and-set then loses, as it does to a push, and the put is ordered after the transaction otherwise), so
     * the invariants are what catch it: nothing but the decision may replace the PENDING word, and nothing may
     * replace a secondary intent but its resolution.
     */
    @Test
    void aPutReplacingAPendingIntentIsCaughtByTheInvariants()
    {
        assertCaught(scope(List.of(APPEND_XY), GETS, X, 0, 0).with(TxnVariant.WRITER_OVERWRITES_PENDING), true,
            "nothing but its decision may name that word (invariant 2)");
        assertCaught(scope(List.of(APPEND_XY), GETS, Y, 0, 0).with(TxnVariant.WRITER_OVERWRITES_PENDING), true,
            "not resolved (writers resolve first)");
    }

    @Test
    void waitingWithoutEverPushingIsCaughtAsClientsThatWaitForEverOnACrashedCoordinator()
    {
        assertCaught(scope(List.of(APPEND_XY), GETS, NO_WRITER, 1, 0).with(TxnVariant.NO_PUSH), true,
            "wait for ever");
    }

    /**
     * The draft as first written says what an unknown outcome means in Commit's steps 1 to 4 only: taking a
     * secondary's resolution of unknown outcome as done and resolving the primary next leaves a committed
     * transaction's intent without its primary, which every reader then takes for aborted: the write is lost. The
     * protocol ({@link TxnVariant#PROTOCOL}) settles such an outcome first.
     */
    @Test
    void theDraftAsWrittenLosesACommittedWriteWhenAResolutionsOutcomeIsUnknown()
    {
        final TxnScope scope = scope(List.of(APPEND_XY), GETS, NO_WRITER, 0, 1).with(TxnVariant.AS_DRAFTED);
        assertCaught(scope, false, "not atomic");
        assertCaught(scope, true, "the primary must outlive them (invariant 3)");
    }

    /**
     * Parallel commit as first proposed settles an intent's compare-and-set of unknown outcome as the protocol does, by
     * aborting at the primary. But every intent in is the commit: the secondary's swap that the coordinator did not
     * hear of landed, a reader checking the STAGING record finds every intent in, decides it COMMITTED and reads the
     * new value, and the coordinator's abort then misses: it answers failed a transaction that committed.
     */
    @Test
    void parallelCommitAsProposedAnswersFailedATransactionCommittedByAnIntentOfUnknownOutcome()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), GETS, NO_WRITER, 0, 1)
            .with(TxnVariant.PARALLEL_AS_PROPOSED);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "was aborted though every intent of T1 was in: it had committed (P2)");
    }

    /**
     * The fix settles such an outcome by trying the swap again and, that failing, reading the key; one that no longer
     * holds the intent may have held it and been resolved by a reader that found every intent in. Taking that for a
     * failure, answering failed once the abort misses and rolling back, is caught.
     */
    @Test
    void parallelCommitTakingAnIntentSettledAsNotInForAFailureIsCaughtAsALostCommit()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), READ_ONLY, NO_WRITER, 0, 1)
            .with(TxnVariant.PARALLEL_DOUBT_TAKEN_AS_FAILED);
        assertCaught(scope, false, "not atomic");
        assertCaught(scope, true, "was answered failed though every one of its intents was in (P5)");
    }

    /**
     * Resolved before the explicit COMMITTED, a secondary no longer holds the intent the STAGING check looks for, nor
     * the write id the record lists: a reader takes the committed transaction for one that can never commit.
     */
    @Test
    void parallelCommitResolvingASecondaryWhileItsPrimaryIsStagingIsCaughtAsACommittedWriteUndone()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.PARALLEL_RESOLVED_WHILE_STAGING);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "was resolved before T1's primary was decided COMMITTED (P3)");
    }

    /**
     * A secondary that still holds the write id the transaction's compare-and-set expects may yet take its intent:
     * aborted unfenced, the transaction's swap lands after, and its coordinator, every swap in, answers committed.
     */
    @Test
    void parallelCommitAbortingAtAnUnfencedSecondaryIsCaughtAsALostCommit()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.PARALLEL_ABORT_UNFENCED);
        assertCaught(scope, false, "not atomic");
        assertCaught(scope, true, "it may still commit (P2)");
    }

    /** The same at a secondary whose primary still holds the write id its STAGING record's swap expects. */
    @Test
    void parallelCommitRollingBackASecondaryOfAnUnfencedPrimaryIsCaughtAsALostWrite()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), READ_ONLY, NO_WRITER, 0, 0)
            .with(TxnVariant.PARALLEL_ROLLBACK_UNFENCED);
        assertCaught(scope, false, "not atomic");
        assertCaught(scope, true, "holds the write id its compare-and-set expects: it may still land (P3)");
    }

    @Test
    void parallelCommitAnsweringBeforeEveryIntentIsInIsCaughtAsAStaleRead()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.PARALLEL_ANSWER_BEFORE_WHOLE);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "was answered committed before every one of its intents was in (P5)");
    }

    /**
     * Where a key with no value has no write id, a fence of such a key writes nothing new, and a swap from none
     * lands whenever the key has none again: a reader fences the primary that holds none, rolls the secondary back,
     * the STAGING record's swap lands after, and its coordinator, every swap in, answers committed.
     */
    @Test
    void parallelCommitOfKeysWithNoValueIsCaughtWhereSuchAKeyHasNoWriteId()
    {
        final TxnScope scope = parallel(List.of(APPEND_XY, APPEND_XY), GETS, NO_WRITER, 0, 0)
            .with(TxnVariant.PARALLEL_ABSENT_WITHOUT_WRITE_ID);
        assertCaught(scope, false, "history not strictly serializable");
        assertCaught(scope, true, "it may still land (P3)");
    }

    @Test
    void theCheckerRejectsWriteSkew()
    {
        final TxnHistory history = TxnHistory.of(2)
            .with(0, new Op(Op.OK, values(NONE, NONE), KeyInts.EMPTY.with(X, Values.append(NONE, 1))))
            .with(1, new Op(Op.OK, values(NONE, NONE), KeyInts.EMPTY.with(Y, Values.append(NONE, 2))));
        assertFalse(StrictSerializability.holds(history, 2, null));
    }

    @Test
    void theCheckerRejectsAFracturedReadAndAStaleOneAfterTheCommit()
    {
        final int one = Values.append(NONE, 1);
        final Op commit = new Op(Op.OK, values(NONE, NONE), values(one, one));
        final TxnHistory fractured = TxnHistory.of(2).with(0, commit)
            .with(1, new Op(Op.OK, values(one, NONE), KeyInts.EMPTY));
        assertFalse(StrictSerializability.holds(fractured, 2, null));
        final TxnHistory before = TxnHistory.of(2).with(0, commit).invoke(1, Op.NOT_YET)
            .with(1, new Op(Op.OK, values(NONE, NONE), KeyInts.EMPTY));
        assertFalse(StrictSerializability.holds(before, 2, null));
        final TxnHistory concurrent = TxnHistory.of(2).with(0, commit)
            .with(1, new Op(Op.OK, values(NONE, NONE), KeyInts.EMPTY));
        assertTrue(StrictSerializability.holds(concurrent, 2, null));
    }

    @Test
    void theCheckerLetsATransactionWithoutAnAnswerTakeEffectOrNotButNotHalf()
    {
        final int one = Values.append(NONE, 1);
        final TxnHistory unknown = TxnHistory.of(1).with(0, new Op(Op.INFO, values(NONE, NONE), values(one, one)));
        assertTrue(StrictSerializability.holds(unknown, 2, values(one, one)));
        assertTrue(StrictSerializability.holds(unknown, 2, values(NONE, NONE)));
        assertFalse(StrictSerializability.holds(unknown, 2, values(one, NONE)));
    }

    private static TxnScope scope(final List<Workload> coordinators, final TxnScope.Observer observer,
        final int writerKey, final int crashes, final int unknowns)
    {
        return new TxnScope(coordinators, observer, writerKey, crashes, unknowns, TxnVariant.PROTOCOL);
    }

    private static TxnScope parallel(final List<Workload> coordinators, final TxnScope.Observer observer,
        final int writerKey, final int crashes, final int unknowns)
    {
        return new TxnScope(coordinators, observer, writerKey, crashes, unknowns, TxnVariant.PARALLEL_COMMIT);
    }

    private static KeyInts values(final int x, final int y)
    {
        return KeyInts.EMPTY.with(X, x).with(Y, y);
    }

    /** The walk must stop on a counterexample of the kind named, printed with the steps that lead to it. */
    private static void assertCaught(final TxnScope scope, final boolean checkInvariants, final String kind)
    {
        final TxnExplorer.Result result = TxnExplorer.explore(scope, checkInvariants);
        System.out.println((checkInvariants ? "with the invariants: " : "the history alone: ") + result);
        assertFalse(result.holds(), "no counterexample: " + result);
        assertTrue(result.counterexample().contains(kind), result::toString);
    }
}

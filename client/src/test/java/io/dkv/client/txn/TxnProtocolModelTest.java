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

    @ParameterizedTest(name = "{0}")
    @MethodSource("scopes")
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

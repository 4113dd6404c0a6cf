package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.dkv.checker.elle.TxnHistory.append;
import static io.dkv.checker.elle.TxnHistory.read;
import static io.dkv.checker.elle.TxnHistory.readAbsent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-written list-append histories: the valid ones pass, each anomaly is reported under its name with a witness
 * naming the transactions that make it.
 */
class ElleCheckerTest
{
    private static final ElleChecker STRICT = new ElleChecker();
    private static final ElleChecker SERIALIZABLE = new ElleChecker(ElleChecker.Model.SERIALIZABLE);

    @Test
    void serialAppendsAndReadsAreValid()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 1), read("x", 1));
        history.ok(20, 30, read("x", 1), append("x", 2), append("y", 1));
        history.ok(40, 50, read("x", 1, 2), read("y", 1));

        final ElleResult result = STRICT.check(history.history());

        assertTrue(result.isValid(), result.toText());
        assertEquals(3, result.transactionsChecked());
        assertEquals(List.of(), result.anomalyNames());
    }

    @Test
    void concurrentTransactionsWithAConsistentOrderAreValid()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 100, append("x", 1));
        history.ok(10, 110, append("x", 2), read("y", 1));
        history.ok(20, 120, append("y", 1), read("x", 1));
        history.ok(200, 210, read("x", 1, 2), read("y", 1));

        final ElleResult result = STRICT.check(history.history());

        assertTrue(result.isValid(), result.toText());
    }

    @Test
    void anIndeterminateAppendObservedLaterCountsAsCommitted()
    {
        final TxnHistory history = new TxnHistory();
        history.info(0, 10, append("x", 1));
        history.ok(20, 30, read("x", 1), append("x", 2));
        history.ok(40, 50, read("x", 1, 2));

        final ElleResult result = STRICT.check(history.history());

        assertTrue(result.isValid(), result.toText());
    }

    @Test
    void anIndeterminateAppendNeverObservedIsValid()
    {
        final TxnHistory history = new TxnHistory();
        history.info(0, 10, append("x", 1));
        history.info(5, -1, append("x", 2));
        history.ok(20, 30, readAbsent("x"), append("x", 3));
        history.ok(40, 50, read("x", 3));

        final ElleResult result = STRICT.check(history.history());

        assertTrue(result.isValid(), result.toText());
    }

    @Test
    void aFailedAppendNobodyReadIsValid()
    {
        final TxnHistory history = new TxnHistory();
        history.fail(0, 10, append("x", 1));
        history.ok(20, 30, read("x"));

        assertTrue(STRICT.check(history.history()).isValid());
    }

    @Test
    void anAppendThatCompletedButNoLaterReadSeesIsALostAppend()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 1));
        final int lost = history.ok(20, 30, read("x", 1), append("x", 2));
        final int reader = history.ok(40, 50, read("x", 1));

        final ElleResult strict = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.LOST_APPEND), strict.anomalyNames(), strict.toText());
        final Witness witness = onlyWitness(strict, AnomalyNames.LOST_APPEND);
        assertEquals(Set.of(lost, reader), processes(witness.transactions()));
        assertTrue(witness.explanation().contains("appended 2 to x"), witness.explanation());
        // without real time the read may be ordered before the append
        assertTrue(SERIALIZABLE.check(history.history()).isValid());
    }

    @Test
    void anAppendNobodyReadAfterItCompletedIsNotLost()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 1));
        history.ok(20, 40, append("x", 2));
        history.ok(30, 50, read("x", 1));

        assertTrue(STRICT.check(history.history()).isValid());
    }

    @Test
    void appendsOrderedOppositelyOnTwoKeysAreAWriteCycleG0()
    {
        final TxnHistory history = new TxnHistory();
        final int t1 = history.ok(0, 100, append("x", 1), append("y", 1));
        final int t2 = history.ok(10, 110, append("x", 2), append("y", 2));
        history.ok(200, 210, read("x", 1, 2), read("y", 2, 1));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G0), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.G0);
        assertEquals(Set.of(t1, t2), processes(witness.transactions()));
        assertEquals(2, witness.cycle().size());
        assertEquals(List.of(DependencyType.WW, DependencyType.WW),
            witness.cycle().stream().map(Dependency::type).toList());
        assertEquals(Set.of("x", "y"), Set.of(witness.cycle().get(0).key(), witness.cycle().get(1).key()));
        assertTrue(witness.explanation().contains("(ww on x)"), witness.explanation());
        assertTrue(witness.explanation().contains("(ww on y)"), witness.explanation());
    }

    @Test
    void aReadOfAFailedTransactionsAppendIsAnAbortedReadG1a()
    {
        final TxnHistory history = new TxnHistory();
        final int writer = history.fail(0, 10, append("x", 1));
        final int reader = history.ok(20, 30, read("x", 1));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G1A), result.anomalyNames(), result.toText());
        assertEquals(List.of(reader, writer), processList(onlyWitness(result, AnomalyNames.G1A).transactions()));
    }

    @Test
    void aReadEndingAtANonFinalAppendIsAnIntermediateReadG1b()
    {
        final TxnHistory history = new TxnHistory();
        final int writer = history.ok(0, 100, append("x", 1), append("x", 2));
        final int reader = history.ok(10, 50, read("x", 1));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G1B), result.anomalyNames(), result.toText());
        assertEquals(List.of(reader, writer), processList(onlyWitness(result, AnomalyNames.G1B).transactions()));
    }

    @Test
    void aWriteReadAndAWriteWriteDependencyInACircleAreCircularInformationFlowG1c()
    {
        final TxnHistory history = new TxnHistory();
        final int t1 = history.ok(0, 100, append("x", 1), append("y", 2));
        final int t2 = history.ok(10, 110, read("x", 1), append("y", 1));
        history.ok(200, 210, read("y", 1, 2));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G1C), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.G1C);
        assertEquals(Set.of(t1, t2), processes(witness.transactions()));
        assertEquals(Set.of(DependencyType.WR, DependencyType.WW), types(witness));
    }

    @Test
    void readSkewIsACycleWithOneAntiDependencyGSingle()
    {
        final TxnHistory history = new TxnHistory();
        final int writer = history.ok(0, 100, append("x", 1), append("y", 1));
        final int skewed = history.ok(10, 110, read("x"), read("y", 1));
        history.ok(200, 210, read("x", 1));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G_SINGLE), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.G_SINGLE);
        assertEquals(Set.of(writer, skewed), processes(witness.transactions()));
        assertEquals(Set.of(DependencyType.RW, DependencyType.WR), types(witness));
        assertTrue(witness.explanation().contains("read x empty"), witness.explanation());
    }

    @Test
    void writeSkewIsACycleWithTwoAntiDependenciesG2Item()
    {
        final TxnHistory history = new TxnHistory();
        final int t1 = history.ok(0, 100, read("x"), append("y", 1));
        final int t2 = history.ok(10, 110, readAbsent("y"), append("x", 1));
        history.ok(200, 210, read("x", 1), read("y", 1));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G2_ITEM), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.G2_ITEM);
        assertEquals(Set.of(t1, t2), processes(witness.transactions()));
        assertEquals(Set.of(DependencyType.RW), types(witness));
    }

    @Test
    void aLostUpdateIsAGSingleCycle()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 1));
        final int first = history.ok(20, 100, read("x", 1), append("x", 2));
        final int lost = history.ok(30, 110, read("x", 1), append("x", 3));
        history.ok(200, 210, read("x", 1, 2, 3));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G_SINGLE), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.G_SINGLE);
        assertEquals(Set.of(first, lost), processes(witness.transactions()));
        assertEquals(Set.of(DependencyType.RW, DependencyType.WW), types(witness));
    }

    @Test
    void aStaleReadBreaksStrictSerializabilityOnly()
    {
        final TxnHistory history = new TxnHistory();
        final int writer = history.ok(0, 10, append("x", 1));
        history.ok(15, 18, append("y", 1));
        final int stale = history.ok(20, 30, read("x"));
        history.ok(40, 50, read("x", 1));

        final ElleResult strict = STRICT.check(history.history());
        final ElleResult serializable = SERIALIZABLE.check(history.history());

        assertEquals(List.of(AnomalyNames.G_SINGLE + AnomalyNames.REALTIME_SUFFIX), strict.anomalyNames(),
            strict.toText());
        final Witness witness = onlyWitness(strict, "G-single-realtime");
        assertEquals(List.of(stale, writer), processList(witness.transactions()));
        assertEquals(List.of(DependencyType.RW, DependencyType.REALTIME), typesFrom(witness, stale));
        assertTrue(witness.explanation()
            .contains("T2 (#0) completed at 10 before T1 (#4) was invoked at 20 (realtime)"),
            witness.explanation());
        assertTrue(serializable.isValid(), serializable.toText());
    }

    @Test
    void aCycleClosedByALongerRealtimeOrderNamesOnlyItsEnds()
    {
        final TxnHistory history = new TxnHistory();
        final int writer = history.ok(0, 100, append("x", 1), append("y", 1));
        final int reader = history.ok(10, 20, read("y", 1));
        history.ok(22, 28, append("z", 1));
        final int stale = history.ok(30, 40, read("x"));
        history.ok(200, 210, read("x", 1));

        final ElleResult strict = STRICT.check(history.history());

        assertEquals(List.of("G-single-realtime"), strict.anomalyNames(), strict.toText());
        final Witness witness = onlyWitness(strict, "G-single-realtime");
        assertEquals(List.of(DependencyType.RW, DependencyType.WR, DependencyType.REALTIME), typesFrom(witness, stale));
        assertEquals(Set.of(stale, writer, reader), processes(witness.transactions()));
        assertTrue(SERIALIZABLE.check(history.history()).isValid());
    }

    @Test
    void twoReadsNeitherAPrefixOfTheOtherAreAnIncompatibleOrder()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 100, append("x", 1));
        history.ok(10, 110, append("x", 2));
        final int longest = history.ok(200, 210, read("x", 1, 2));
        final int other = history.ok(220, 230, read("x", 2));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.INCOMPATIBLE_ORDER), result.anomalyNames(), result.toText());
        assertEquals(List.of(other, longest),
            processList(onlyWitness(result, AnomalyNames.INCOMPATIBLE_ORDER).transactions()));
    }

    @Test
    void aTransactionNotSeeingItsOwnAppendIsInternallyInconsistent()
    {
        final TxnHistory history = new TxnHistory();
        final int blind = history.ok(0, 10, append("x", 1), read("x"));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.INTERNAL), result.anomalyNames(), result.toText());
        assertEquals(List.of(blind), processList(onlyWitness(result, AnomalyNames.INTERNAL).transactions()));
    }

    @Test
    void aTransactionWhoseSecondReadDiffersFromItsFirstIsInternallyInconsistent()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 100, append("x", 5));
        final int unrepeatable = history.ok(10, 110, read("x"), read("x", 5));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.INTERNAL), result.anomalyNames(), result.toText());
        final Witness witness = onlyWitness(result, AnomalyNames.INTERNAL);
        assertEquals(List.of(unrepeatable), processList(witness.transactions()));
        assertTrue(witness.explanation().contains("should have read []"), witness.explanation());
    }

    @Test
    void readsOfTheSameKeyAfterOwnAppendsAreConsistentWhenTheyShowThem()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 5));
        history.ok(20, 30, read("x", 5), append("x", 6), read("x", 5, 6), append("x", 7), read("x", 5, 6, 7));
        history.ok(40, 50, append("x", 8), read("x", 5, 6, 7, 8));

        assertTrue(STRICT.check(history.history()).isValid());
    }

    @Test
    void anElementReadTwiceOrAppendedTwiceIsADuplicate()
    {
        final TxnHistory readTwice = new TxnHistory();
        readTwice.ok(0, 10, append("x", 1));
        final int reader = readTwice.ok(20, 30, read("x", 1, 1));
        final TxnHistory appendedTwice = new TxnHistory();
        final int first = appendedTwice.ok(0, 10, append("x", 1));
        final int second = appendedTwice.ok(20, 30, append("x", 1));

        final ElleResult readResult = STRICT.check(readTwice.history());
        final ElleResult appendResult = STRICT.check(appendedTwice.history());

        assertTrue(readResult.anomalyNames().contains(AnomalyNames.DUPLICATE_ELEMENTS), readResult.toText());
        assertEquals(List.of(reader),
            processList(onlyWitness(readResult, AnomalyNames.DUPLICATE_ELEMENTS).transactions()));
        assertEquals(List.of(AnomalyNames.DUPLICATE_ELEMENTS), appendResult.anomalyNames(), appendResult.toText());
        final Witness duplicateAppend = onlyWitness(appendResult, AnomalyNames.DUPLICATE_ELEMENTS);
        assertEquals(List.of(first, second), processList(duplicateAppend.transactions()));
    }

    @Test
    void aReadOfAnElementNobodyAppendedIsAGarbageRead()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 10, append("x", 1));
        final int reader = history.ok(20, 30, read("x", 1, 7));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.GARBAGE_READ), result.anomalyNames(), result.toText());
        assertEquals(List.of(reader), processList(onlyWitness(result, AnomalyNames.GARBAGE_READ).transactions()));
    }

    @Test
    void witnessesAreCappedButEveryOccurrenceIsCounted()
    {
        final TxnHistory history = new TxnHistory();
        history.fail(0, 10, append("x", 1));
        for (int i = 0; i < 15; i++)
        {
            history.ok(20 + i, 40 + i, read("x", 1));
        }

        final ElleResult result = STRICT.check(history.history());

        assertEquals(15, result.count(AnomalyNames.G1A));
        assertEquals(ElleChecker.DEFAULT_WITNESS_LIMIT, result.anomalies().get(AnomalyNames.G1A).size());
        assertTrue(result.toText().contains("G1a: found 15, the first 10 shown"), result.toText());
    }

    @Test
    void aReportNamesEachAnomalyTheTransactionsAndTheDependencies()
    {
        final TxnHistory history = new TxnHistory();
        history.ok(0, 100, append("x", 1), append("y", 1));
        history.ok(10, 110, append("x", 2), append("y", 2));
        history.ok(200, 210, read("x", 1, 2), read("y", 2, 1));

        final String text = STRICT.check(history.history()).toText();

        assertTrue(text.startsWith("INVALID [G0] (strict-serializable, 3 transactions checked)"), text);
        assertTrue(text.contains("G0: found 1"), text);
        assertTrue(text.contains("T1 (#0): p0 ok [0, 100]: append x 1, append y 1"), text);
        assertTrue(text.contains("T2 (#1) appended 2 to x right after T1 (#0) appended 1 (ww on x)"), text);
    }

    @Test
    void aCycleThroughTensOfThousandsOfTransactionsIsFoundWithoutRunningOutOfStack()
    {
        final int length = 30_000;
        final TxnHistory history = new TxnHistory();
        final List<List<?>> finalReads = new ArrayList<>(length);
        for (int i = 0; i < length; i++)
        {
            history.ok(i, length + i, append("k" + i, 2), append("k" + (i + 1) % length, 1));
            finalReads.add(read("k" + i, 1, 2));
        }
        history.ok(3L * length, 3L * length + 1, finalReads.toArray(new List<?>[0]));

        final ElleResult result = STRICT.check(history.history());

        assertEquals(List.of(AnomalyNames.G0), result.anomalyNames());
        assertEquals(length, onlyWitness(result, AnomalyNames.G0).cycle().size());
    }

    @Test
    void operationsOtherThanTransactionsAreLeftOut()
    {
        final List<Op> events = new ArrayList<>(new TxnHistory().history().ops());
        events.add(new Op(0, OpType.INVOKE, 7, Op.READ, "r", null, 0, null));
        events.add(new Op(0, OpType.OK, 7, Op.READ, "r", 3L, 1, null));
        events.add(new Op(0, OpType.INVOKE, 8, Op.TXN, null, List.of(append("x", 1)), 2, null));
        events.add(new Op(0, OpType.OK, 8, Op.TXN, null, List.of(append("x", 1)), 3, null));

        final ElleResult result = STRICT.check(History.of(events));

        assertTrue(result.isValid(), result.toText());
        assertEquals(1, result.transactionsChecked());
    }

    @Test
    void aMalformedMicroOperationIsRejectedWithTheTransaction()
    {
        final List<Object> bad = Arrays.asList("delete", "x", 1L);
        final History history = History.of(List.of(
            new Op(0, OpType.INVOKE, 0, Op.TXN, null, List.of(bad), 0, null),
            new Op(0, OpType.OK, 0, Op.TXN, null, List.of(bad), 1, null)));

        final IllegalArgumentException thrown =
            assertThrows(IllegalArgumentException.class, () -> STRICT.check(history));

        assertTrue(thrown.getMessage().contains("delete") && thrown.getMessage().contains("p0 txn"),
            thrown.getMessage());
    }

    private static Witness onlyWitness(final ElleResult result, final String anomaly)
    {
        final List<Witness> witnesses = result.anomalies().get(anomaly);
        assertFalse(witnesses == null || witnesses.isEmpty(), () -> "no " + anomaly + " in " + result.toText());
        assertEquals(1, witnesses.size(), result::toText);
        return witnesses.getFirst();
    }

    private static Set<Integer> processes(final List<Operation> transactions)
    {
        return new TreeSet<>(processList(transactions));
    }

    private static List<Integer> processList(final List<Operation> transactions)
    {
        return transactions.stream().map(Operation::process).toList();
    }

    /** @return the types of the cycle's dependencies in order, from the transaction of the process on. */
    private static List<DependencyType> typesFrom(final Witness witness, final int process)
    {
        final List<Dependency> cycle = witness.cycle();
        final int start = processList(witness.transactions()).indexOf(process);
        final List<DependencyType> types = new ArrayList<>();
        for (int i = 0; i < cycle.size(); i++)
        {
            types.add(cycle.get((start + i) % cycle.size()).type());
        }
        return types;
    }

    private static Set<DependencyType> types(final Witness witness)
    {
        final Set<DependencyType> types = new TreeSet<>();
        witness.cycle().forEach(dependency -> types.add(dependency.type()));
        return types;
    }
}

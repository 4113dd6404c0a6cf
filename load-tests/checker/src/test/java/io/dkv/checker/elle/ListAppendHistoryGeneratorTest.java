package io.dkv.checker.elle;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryJson;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generated histories of a strictly serializable store are valid, stay so through JSON lines, and one corrupted
 * read makes them invalid.
 */
class ListAppendHistoryGeneratorTest
{
    private static final int TRANSACTIONS = 20_000;
    private static final int KEYS = 200;
    private static final int PROCESSES = 10;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void generatedHistoriesAreValid(final long seed)
    {
        final History history = ListAppendHistoryGenerator.generate(seed, TRANSACTIONS, KEYS, PROCESSES);

        final ElleResult result = new ElleChecker().check(history);

        assertTrue(result.isValid(), result.toText());
        assertEquals(TRANSACTIONS, result.transactionsChecked());
    }

    @Test
    void generatedHistoriesHoldConcurrentFailedAndIndeterminateTransactions()
    {
        final History history = new ListAppendHistoryGenerator()
            .seed(4).transactions(5_000).keys(20).processes(8).failFraction(0.05).infoFraction(0.05).generate();

        final long failed = history.operations().stream().filter(Operation::isFail).count();
        final long indeterminate = history.operations().stream().filter(Operation::isIndeterminate).count();
        final long readsSeeingLists = history.operations().stream().filter(Operation::isOk)
            .flatMap(operation -> ((List<?>)operation.value()).stream())
            .filter(microOp -> ((List<?>)microOp).get(2) instanceof List<?> list && !list.isEmpty())
            .count();
        assertEquals(5_000, history.operations().size());
        assertTrue(failed > 100 && indeterminate > 100, "failed " + failed + ", indeterminate " + indeterminate);
        assertTrue(readsSeeingLists > 1_000, "reads seeing lists: " + readsSeeingLists);
        assertTrue(maxConcurrency(history) > 1, "transactions never overlap");
        assertTrue(new ElleChecker().check(history).isValid());
    }

    @Test
    void theSameSeedGivesTheSameHistory()
    {
        final History first = ListAppendHistoryGenerator.generate(9, 500, 10, 4);
        final History second = ListAppendHistoryGenerator.generate(9, 500, 10, 4);

        assertEquals(first.ops(), second.ops());
    }

    @Test
    void aJsonRoundTripGivesTheSameVerdict(@TempDir final Path directory)
    {
        final History valid = ListAppendHistoryGenerator.generate(5, TRANSACTIONS, KEYS, PROCESSES);
        final History invalid = swapFirstTwoElementsOfALongRead(valid);
        final Path validFile = directory.resolve("valid.jsonl");
        final Path invalidFile = directory.resolve("invalid.jsonl");
        HistoryJson.write(valid, validFile);
        HistoryJson.write(invalid, invalidFile);

        assertSameVerdict(new ElleChecker().check(valid), new ElleChecker().check(HistoryJson.read(validFile)));
        assertSameVerdict(new ElleChecker().check(invalid), new ElleChecker().check(HistoryJson.read(invalidFile)));
    }

    @Test
    void aGeneratedHistoryWithOneReadOutOfOrderIsInvalid()
    {
        final History valid = ListAppendHistoryGenerator.generate(6, TRANSACTIONS, KEYS, PROCESSES);
        final History history = swapFirstTwoElementsOfALongRead(valid);

        final ElleResult result = new ElleChecker().check(history);

        assertFalse(result.isValid());
        assertTrue(result.anomalyNames().contains(AnomalyNames.INCOMPATIBLE_ORDER), result.toText());
    }

    @Test
    void staleReadsInAGeneratedHistoryBreakStrictSerializabilityAndAStrictCheckReportsAllASerializableOneDoes()
    {
        final History history =
            withStaleReads(ListAppendHistoryGenerator.generate(7, TRANSACTIONS, KEYS, PROCESSES), 100);

        final ElleResult strict = new ElleChecker().check(history);
        final ElleResult serializable = new ElleChecker(ElleChecker.Model.SERIALIZABLE).check(history);

        assertTrue(strict.anomalyNames().contains("G-single-realtime"), strict.toString());
        assertTrue(strict.anomalyNames().containsAll(serializable.anomalyNames()), strict + " against " + serializable);
    }

    private static void assertSameVerdict(final ElleResult expected, final ElleResult actual)
    {
        assertEquals(expected.isValid(), actual.isValid(), actual.toText());
        assertEquals(expected.anomalyNames(), actual.anomalyNames());
        assertEquals(expected.transactionsChecked(), actual.transactionsChecked());
        assertEquals(expected.toText(), actual.toText());
    }

    /** @return the history with the first two elements of one ok read of three elements or more swapped. */
    private static History swapFirstTwoElementsOfALongRead(final History history)
    {
        final List<Op> ops = new ArrayList<>(history.ops());
        for (int i = ops.size() - 1; i >= 0; i--)
        {
            final Op op = ops.get(i);
            if (op.type() == OpType.OK && op.value() instanceof List<?> microOps)
            {
                for (int m = 0; m < microOps.size(); m++)
                {
                    if (((List<?>)microOps.get(m)).get(2) instanceof List<?> list && list.size() >= 3)
                    {
                        final List<Object> swapped = new ArrayList<>(list);
                        swapped.set(0, list.get(1));
                        swapped.set(1, list.get(0));
                        final List<Object> tampered = new ArrayList<>(microOps);
                        tampered.set(m, Arrays.asList(Op.READ_LIST, ((List<?>)microOps.get(m)).get(1), swapped));
                        ops.set(i, withValue(op, tampered));
                        return History.of(ops);
                    }
                }
            }
        }
        throw new AssertionError("no read of three elements or more");
    }

    /** @return the history with every n-th ok transaction's reads missing their last element. */
    private static History withStaleReads(final History history, final int every)
    {
        final List<Op> ops = new ArrayList<>(history.ops());
        int okSeen = 0;
        for (int i = 0; i < ops.size(); i++)
        {
            final Op op = ops.get(i);
            if (op.type() == OpType.OK && ++okSeen % every == 0)
            {
                final List<Object> microOps = new ArrayList<>();
                for (final Object microOp : (List<?>)op.value())
                {
                    final List<?> parts = (List<?>)microOp;
                    microOps.add(parts.get(2) instanceof List<?> list && !list.isEmpty() ?
                        Arrays.asList(Op.READ_LIST, parts.get(1), list.subList(0, list.size() - 1)) : parts);
                }
                ops.set(i, withValue(op, microOps));
            }
        }
        return History.of(ops);
    }

    private static Op withValue(final Op op, final Object value)
    {
        return new Op(op.index(), op.type(), op.process(), op.f(), op.key(), value, op.time(), op.error());
    }

    private static int maxConcurrency(final History history)
    {
        int running = 0;
        int max = 0;
        for (final Op op : history.ops())
        {
            running += op.isInvoke() ? 1 : -1;
            max = Math.max(max, running);
        }
        return max;
    }
}

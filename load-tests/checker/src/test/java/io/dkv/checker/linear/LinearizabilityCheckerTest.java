package io.dkv.checker.linear;

import io.dkv.checker.history.History;
import io.dkv.checker.history.Op;
import io.dkv.checker.history.OpType;
import io.dkv.checker.history.Operation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinearizabilityCheckerTest
{
    private static final LinearizabilityChecker CHECKER = new LinearizabilityChecker(Duration.ofSeconds(10));

    private static LinearizabilityResult check(final TestHistory history)
    {
        return CHECKER.check(history.history());
    }

    private static void assertValid(final TestHistory history)
    {
        final LinearizabilityResult result = check(history);
        assertEquals(Verdict.VALID, result.verdict(), result::toText);
        assertNull(result.failingKey());
        assertTrue(result.failingOperations().isEmpty());
    }

    private static LinearizabilityResult assertInvalid(final TestHistory history)
    {
        final LinearizabilityResult result = check(history);
        assertEquals(Verdict.INVALID, result.verdict(), result::toText);
        return result;
    }

    private static void assertBlocked(final LinearizabilityResult result, final String line)
    {
        final List<String> blocked = result.explanation().blocked().stream()
            .map(LinearizabilityExplanation.Blocked::toText)
            .toList();
        assertTrue(blocked.contains(line),
            () -> "expected the line \"" + line + "\" among " + blocked + "\n" + result.toText());
        assertTrue(result.toText().contains(line), result::toText);
    }

    @Test
    void aReadAfterAWriteSeesItsValue()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).read("k", 1L, 20, 30));
    }

    @Test
    void aReadConcurrentWithAWriteMaySeeTheOldValueOrTheNew()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).write("k", 2L, 20, 40).read("k", 1L, 25, 35));
        assertValid(new TestHistory().write("k", 1L, 0, 10).write("k", 2L, 20, 40).read("k", 2L, 25, 35));
    }

    @Test
    void aChainOfSuccessfulCasIsLinearizable()
    {
        assertValid(new TestHistory()
            .write("k", 0L, 0, 10)
            .cas("k", 0L, 1L, 20, 30)
            .cas("k", 1L, 2L, 40, 50)
            .cas("k", 2L, 3L, 60, 70)
            .read("k", 3L, 80, 90));
    }

    @Test
    void concurrentCasMayTakeEffectInTheOrderTheirValuesChain()
    {
        assertValid(new TestHistory()
            .write("k", 0L, 0, 10)
            .cas("k", 1L, 2L, 20, 60)
            .cas("k", 0L, 1L, 25, 65)
            .read("k", 2L, 70, 80));
    }

    @Test
    void aFailedCasIsLeftOut()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).casFailed("k", 1L, 5L, 20, 30).read("k", 1L, 40, 50));
    }

    @Test
    void anIndeterminateWriteThatLaterReadsObserveTookEffect()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).writeInfo("k", 5L, 20, 30).read("k", 5L, 40, 50));
        assertValid(new TestHistory().write("k", 1L, 0, 10).writeUnfinished("k", 5L, 20).read("k", 5L, 40, 50));
    }

    @Test
    void anIndeterminateWriteMayTakeEffectLongAfterItsInfo()
    {
        assertValid(new TestHistory()
            .write("k", 1L, 0, 10)
            .writeInfo("k", 5L, 20, 30)
            .read("k", 1L, 40, 50)
            .read("k", 5L, 60, 70));
    }

    @Test
    void anIndeterminateWriteThatNoReadObservesMayNotHaveTakenEffect()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).writeInfo("k", 5L, 20, 30).read("k", 1L, 40, 50));
        // 5 is read before, so the search has to place the write or leave it out rather than drop it beforehand
        assertValid(new TestHistory()
            .write("k", 5L, 0, 10)
            .read("k", 5L, 11, 12)
            .write("k", 1L, 20, 30)
            .writeInfo("k", 5L, 35, 40)
            .writeUnfinished("k", 5L, 41)
            .read("k", 1L, 50, 60)
            .read("k", 1L, 70, 80));
    }

    @Test
    void anIndeterminateReadConstrainsNothing()
    {
        assertValid(new TestHistory().write("k", 1L, 0, 10).readInfo("k", 20, 30).read("k", 1L, 40, 50));
    }

    @Test
    void aKeyNeverWrittenReadsAbsent()
    {
        assertValid(new TestHistory().read("k", null, 0, 10).write("k", 1L, 20, 30).read("other", null, 40, 50));
    }

    @Test
    void writingNullDeletesTheKey()
    {
        assertValid(new TestHistory()
            .write("k", 1L, 0, 10)
            .write("k", null, 20, 30)
            .read("k", null, 40, 50)
            .cas("k", null, 2L, 60, 70)
            .read("k", 2L, 80, 90));
    }

    @Test
    void aStaleReadIsNotLinearizable()
    {
        final LinearizabilityResult result = assertInvalid(new TestHistory()
            .write("k", 1L, 0, 10)
            .write("k", 2L, 20, 30)
            .read("k", 1L, 40, 50));

        assertEquals("k", result.failingKey());
        assertEquals(3, result.failingOperations().size());
        assertEquals(2, result.explanation().longestPrefix().size());
        assertEquals(2L, result.explanation().valueAfterPrefix());
        assertBlocked(result,
            "read k -> 1 (#4) cannot come next: the register holds 2, last written by write k 2 (#2)");
    }

    @Test
    void twoCasFromTheSameValueInSequenceLoseAnUpdate()
    {
        final LinearizabilityResult result = assertInvalid(new TestHistory()
            .write("k", 0L, 0, 10)
            .cas("k", 0L, 1L, 20, 30)
            .cas("k", 0L, 2L, 40, 50));

        assertBlocked(result, "cas k [0 2] (#4) ok but the register holds 1, last written by cas k [0 1] (#2)");
    }

    @Test
    void twoIncrementsByCasOfWhichALaterReadShowsOnlyOneAreNotLinearizable()
    {
        assertInvalid(new TestHistory()
            .write("k", 0L, 0, 10)
            .cas("k", 0L, 1L, 20, 40)
            .cas("k", 0L, 1L, 25, 45)
            .read("k", 1L, 50, 60));
    }

    @Test
    void aReadOfAValueNeverWrittenIsNotLinearizable()
    {
        final LinearizabilityResult result =
            assertInvalid(new TestHistory().write("k", 1L, 0, 10).read("k", 7L, 20, 30));

        assertBlocked(result,
            "read k -> 7 (#2) cannot come next: the register holds 1, last written by write k 1 (#0)");
    }

    @Test
    void aDirtyReadOfAFailedWriteIsNotLinearizable()
    {
        final LinearizabilityResult result = assertInvalid(new TestHistory()
            .write("k", 1L, 0, 10)
            .add(Op.WRITE, "k", 2L, 2L, OpType.FAIL, 20, 30)
            .read("k", 2L, 25, 40));

        assertBlocked(result,
            "read k -> 2 (#3) cannot come next: the register holds 1, last written by write k 1 (#0)");
    }

    @Test
    void aReadOfAWriteNotYetInvokedIsNotLinearizable()
    {
        final LinearizabilityResult result =
            assertInvalid(new TestHistory().read("k", 5L, 0, 10).write("k", 5L, 20, 30));

        final LinearizabilityExplanation explanation = result.explanation();
        assertTrue(explanation.longestPrefix().isEmpty());
        assertBlocked(result, "read k -> 5 (#0) cannot come next: the key is absent, nothing written to it yet");
        assertEquals(Op.READ, explanation.firstToComplete().f());
        assertEquals(List.of(Op.WRITE), explanation.mustComeAfter().stream().map(Operation::f).toList());
        final String realTime =
            "by real time read k -> 5 (#0) must come before write k 5 (#2): it completed before their invocation";
        assertTrue(result.toText().contains(realTime), result::toText);
    }

    @Test
    void aCasThatSucceededThoughTheRegisterCouldNotHoldItsExpectedValueIsNotLinearizable()
    {
        final LinearizabilityResult result = assertInvalid(new TestHistory()
            .write("k", 1L, 0, 10)
            .write("k", 3L, 20, 30)
            .write("k", 2L, 40, 50)
            .cas("k", 3L, 4L, 60, 70));

        assertBlocked(result, "cas k [3 4] (#6) ok but the register holds 2, last written by write k 2 (#4)");
    }

    @Test
    void aValueWrittenToAnotherKeyIsNotVisible()
    {
        final LinearizabilityResult result =
            assertInvalid(new TestHistory().write("a", 1L, 0, 10).read("b", 1L, 20, 30));

        assertEquals("b", result.failingKey());
        assertEquals(List.of("b"), result.invalidKeys());
        assertEquals(1, result.keyCount(Verdict.VALID));
    }

    @Test
    void theFailingKeyReportedIsTheOneWithFewestOperations()
    {
        final TestHistory history = new TestHistory();
        long time = 0;
        for (long value = 0; value < 40; value++)
        {
            history.write("big", value, time, time + 5).read("big", value, time + 6, time + 8);
            time += 10;
        }
        history.read("big", 3L, time, time + 5);
        history.write("small", 1L, time + 10, time + 15)
            .write("small", 2L, time + 20, time + 25)
            .read("small", 1L, time + 30, time + 35);

        final LinearizabilityResult result = assertInvalid(history);

        assertEquals("small", result.failingKey());
        assertEquals(List.of("small", "big"), result.invalidKeys());
        assertEquals(3, result.failingOperations().size());
        assertTrue(result.failingOperations().stream().allMatch(operation -> operation.key().equals("small")));
        assertEquals("small", result.explanation().key());
    }

    @Test
    void eachKeyIsCheckedOnItsOwn()
    {
        final TestHistory history = new TestHistory();
        long time = 0;
        for (int round = 0; round < 5; round++)
        {
            for (int key = 0; key < 100; key++)
            {
                // the same values on every key, overlapping across keys
                history.write("k" + key, (long) round, time, time + 3)
                    .read("k" + key, (long) round, time + 2, time + 5);
                time += 4;
            }
        }

        final LinearizabilityResult result = check(history);

        assertEquals(Verdict.VALID, result.verdict(), result::toText);
        assertEquals(100, result.keysChecked());
        assertEquals(100, result.keyCount(Verdict.VALID));
    }

    @Test
    void aSearchThatOutrunsItsTimeBudgetIsUnknown()
    {
        final LinearizabilityResult result =
            new LinearizabilityChecker(Duration.ofMillis(1)).check(pathological("hard"));

        assertEquals(Verdict.UNKNOWN, result.verdict(), result::toText);
        assertEquals(List.of("hard"), result.unknownKeys());
        assertTrue(result.unknownReason("hard").contains("time budget"), result::toText);
        assertNull(result.failingKey());
    }

    @Test
    void aSearchThatOutgrowsItsMemoryLimitIsUnknown()
    {
        final LinearizabilityChecker checker = new LinearizabilityChecker(Duration.ofSeconds(10), 1, 4096);

        final LinearizabilityResult result = checker.check(pathological("hard"));

        assertEquals(Verdict.UNKNOWN, result.verdict(), result::toText);
        assertTrue(result.unknownReason("hard").contains("cache of configurations"), result::toText);
    }

    @Test
    void anInvalidKeyMakesTheHistoryInvalidThoughAnotherIsUnknown()
    {
        final List<Op> events = new ArrayList<>(pathological("hard").ops());
        final long end = events.getLast().time();
        events.add(new Op(0, OpType.INVOKE, 1000, Op.READ, "small", null, end + 10, null));
        events.add(new Op(0, OpType.OK, 1000, Op.READ, "small", 3L, end + 20, null));

        final LinearizabilityResult result =
            new LinearizabilityChecker(Duration.ofMillis(300)).check(History.of(events));

        assertEquals(Verdict.INVALID, result.verdict(), result::toText);
        assertEquals("small", result.failingKey());
        assertEquals(List.of("hard"), result.unknownKeys());
    }

    @Test
    void otherFunctionsThanReadWriteAndCasAreRefused()
    {
        final History history = History.of(List.of(
            new Op(0, OpType.INVOKE, 0, Op.TXN, null, List.of(List.of(Op.APPEND, "k", 1L)), 0, null),
            new Op(0, OpType.OK, 0, Op.TXN, null, List.of(List.of(Op.APPEND, "k", 1L)), 1, null)));

        final IllegalArgumentException refused =
            assertThrows(IllegalArgumentException.class, () -> CHECKER.check(history));

        assertTrue(refused.getMessage().contains("'txn'"), refused.getMessage());
    }

    @Test
    void valuesARegisterCannotHoldAreRefused()
    {
        final TestHistory history = new TestHistory().add(Op.WRITE, "k", "text", "text", OpType.OK, 0, 10);

        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> check(history));

        assertTrue(refused.getMessage().contains("\"text\""), refused.getMessage());
    }

    /**
     * 32 writes of different values and 8 reads, all at once, then a read of a value none wrote: before giving up
     * the search must try every order of the writes.
     */
    private static History pathological(final String key)
    {
        final TestHistory history = new TestHistory();
        for (long value = 1; value <= 32; value++)
        {
            history.write(key, value, value, 1000 + value);
        }
        for (long value = 1; value <= 8; value++)
        {
            history.read(key, value * 4, 100 + value, 1100 + value);
        }
        return history.read(key, 99L, 2000, 2010).history();
    }
}

package io.dkv.checker.queue;

import io.dkv.checker.history.OpType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-written queue histories: those where every element is delivered once or left pass; a duplicate, a loss and an
 * element from nowhere each fail, naming the element.
 */
class QueueCheckerTest
{
    private static final QueueChecker CHECKER = new QueueChecker();

    @Test
    void everyElementTakenOnceOrLeftIsValid()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 5, 15, "q0", 2)
            .enqueue(OpType.OK, 6, 16, "q1", 3)
            .dequeued(20, 30, "q0", 1)
            .dequeuedNothing(20, 1_000, "q2")
            .drained(2_000, 2_010, "q0", 2)
            .drained(2_000, 2_010, "q1", 3)
            .drained(2_000, 2_010, "q2");

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
        assertEquals(new QueueResult.Tally(3, 0, 1, 0, 1, 2, 0, 0, 0, 0), result.tally());
    }

    @Test
    void anElementTakenTwiceIsDuplicated()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 0, 10, "q0", 2)
            .dequeued(20, 30, "q0", 1)
            .dequeued(25, 35, "q0", 1)
            .drained(100, 110, "q0", 2);

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.duplicated());
        assertEquals(1, result.tally().duplicated());
        assertEquals(0, result.tally().lost());
        assertTrue(result.text().contains("duplicated 1: taken 2 times"), result.text());
        assertEquals(2, result.witness().size());
    }

    @Test
    void anElementTakenThenStillLeftIsDuplicated()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .dequeued(20, 30, "q0", 1)
            .drained(100, 110, "q0", 1);

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.duplicated());
    }

    @Test
    void aDrainOverlappingTheDequeueThatTookItsElementIsNoDuplicate()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .dequeued(90, 130, "q0", 1)
            .drained(100, 110, "q0", 1);

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
    }

    @Test
    void anElementLeftTwiceIsDuplicated()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .drained(100, 110, "q0", 1, 1);

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.duplicated());
        assertEquals(1, result.tally().duplicated());
    }

    @Test
    void anElementEnqueuedOkNeitherTakenNorLeftIsLost()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 0, 10, "q0", 2)
            .enqueue(OpType.OK, 0, 10, "q0", 3)
            .dequeued(20, 30, "q0", 1)
            .dequeuedNothing(40, 1_040, "q0")
            .drained(2_000, 2_010, "q0", 3);

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(2L), result.lost());
        assertEquals(1, result.tally().lost());
        assertTrue(result.text().contains("lost on q0: 1 elements"), result.text());
    }

    @Test
    void indeterminateDequeuesCoverAsManyUnaccountedElementsOfTheirKey()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 0, 10, "q0", 2)
            .enqueue(OpType.OK, 0, 10, "q0", 3)
            .dequeueUnknown(20, 2_020, "q0")
            .dequeueUnknown(30, -1, "q0")
            .drained(3_000, 3_010, "q0", 3);

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
        assertEquals(new QueueResult.Tally(3, 0, 0, 2, 0, 1, 2, 0, 0, 0), result.tally());
    }

    @Test
    void moreUnaccountedElementsThanIndeterminateDequeuesAreLost()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 0, 10, "q0", 2)
            .enqueue(OpType.OK, 0, 10, "q0", 3)
            .dequeueUnknown(20, 2_020, "q0")
            .drained(3_000, 3_010, "q0");

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(2, result.tally().lost());
        assertEquals(3, result.tally().unaccounted());
        assertEquals(List.of(1L, 2L, 3L), result.lost().stream().sorted().toList());
    }

    @Test
    void anIndeterminateDequeueOfAnotherKeyCoversNothing()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .dequeueUnknown(20, 2_020, "q1")
            .drained(3_000, 3_010, "q0")
            .drained(3_000, 3_010, "q1");

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.lost());
    }

    @Test
    void anIndeterminateEnqueueNeverSeenIsNotLost()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.INFO, 0, 2_000, "q0", 1)
            .enqueue(OpType.INFO, 0, -1, "q0", 2)
            .dequeued(20, 30, "q0", 2)
            .drained(3_000, 3_010, "q0");

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
        assertEquals(new QueueResult.Tally(0, 2, 1, 0, 0, 0, 0, 0, 0, 0), result.tally());
    }

    @Test
    void anElementNobodyEnqueuedIsUnexpected()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .dequeued(20, 30, "q0", 1)
            .dequeued(20, 30, "q0", 7)
            .drained(3_000, 3_010, "q0");

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(7L), result.unexpected());
        assertTrue(result.text().contains("which nobody enqueued"), result.text());
    }

    @Test
    void anElementWhoseEnqueueFailedIsUnexpected()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.FAIL, 0, 10, "q0", 1)
            .drained(3_000, 3_010, "q0", 1);

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.unexpected());
        assertTrue(result.text().contains("an enqueue that failed offered"), result.text());
    }

    @Test
    void anElementFoundOnAnotherKeyIsUnexpected()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .dequeued(20, 30, "q1", 1)
            .drained(3_000, 3_010, "q0")
            .drained(3_000, 3_010, "q1");

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.unexpected());
    }

    @Test
    void anElementTakenBeforeItsEnqueueBeganIsUnexpected()
    {
        final QueueHistory history = new QueueHistory()
            .dequeued(0, 10, "q0", 1)
            .enqueue(OpType.OK, 20, 30, "q0", 1)
            .drained(3_000, 3_010, "q0");

        final QueueResult result = CHECKER.check(history.history());

        assertFalse(result.valid(), result.text());
        assertEquals(List.of(1L), result.unexpected());
    }

    @Test
    void aKeyWithoutAFinalDrainIsNotJudgedForLoss()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1);

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
        assertTrue(result.text().contains("no final drain of q0 (1 elements not taken)"), result.text());
    }

    @Test
    void theLastDrainOfAKeyIsWhatWasLeft()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.INFO, 0, 20, "q0", 2)
            .drained(100, 110, "q0", 1)
            .drained(200, 210, "q0", 1, 2);

        final QueueResult result = CHECKER.check(history.history());

        assertTrue(result.valid(), result.text());
        assertEquals(2, result.tally().left());
    }

    @Test
    void anElementEnqueuedTwiceIsRefused()
    {
        final QueueHistory history = new QueueHistory()
            .enqueue(OpType.OK, 0, 10, "q0", 1)
            .enqueue(OpType.OK, 20, 30, "q0", 1);

        final IllegalArgumentException thrown =
            assertThrows(IllegalArgumentException.class, () -> CHECKER.check(history.history()));

        assertTrue(thrown.getMessage().contains("element 1 enqueued twice"), thrown.getMessage());
    }
}

package io.dkv.load.check.workload;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryRecorder;
import io.dkv.checker.history.Op;
import io.dkv.checker.queue.QueueChecker;
import io.dkv.checker.queue.QueueResult;
import io.dkv.load.check.harness.CheckResult;
import io.dkv.load.check.harness.ResultDirectory;
import io.dkv.load.check.harness.Verdict;
import io.dkv.load.check.store.CheckedStore;
import io.dkv.load.check.store.FaultyStores;
import io.dkv.load.check.store.MapQueueStore;
import io.dkv.load.check.store.MapStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The redis-queue workload and its checker over queues in memory: a correct one is valid, whatever the workers'
 * timing; a layer that hands a popped element out again is caught, named by the element.
 */
class RedisQueueWorkloadTest
{
    private static final int OPERATIONS = 400;
    /** The deadline one operation of the serial runs gets: a pop of an empty queue gives up after half of it. */
    private static final long SERIAL_DEADLINE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    @TempDir
    Path results;

    @Test
    void everyElementEnqueuedIsTakenOnceOrDrainedFromACorrectQueue()
    {
        final QueueResult result = new QueueChecker().check(serialRun(new MapQueueStore()));

        assertTrue(result.valid(), result.text());
        final QueueResult.Tally tally = result.tally();
        assertEquals(tally.enqueuedOk(), tally.dequeuedOk() + tally.left(), result.text());
        assertTrue(tally.dequeuedOk() > 0 && tally.dequeuedEmpty() > 0 && tally.left() > 0, result.text());
        assertEquals(OPERATIONS, tally.enqueuedOk() + tally.dequeuedOk() + tally.dequeuedEmpty(), result.text());
    }

    @Test
    void aPopHandingOutAnElementAgainIsCaughtAsADuplicate()
    {
        final int popsPerDuplicate = 10;
        final QueueResult result = new QueueChecker().check(
            serialRun(new FaultyStores.DuplicatePops(new MapQueueStore(), popsPerDuplicate)));

        assertFalse(result.valid(), result.text());
        assertTrue(result.tally().dequeuedOk() >= popsPerDuplicate, result.text());
        assertEquals(result.tally().duplicated(), result.duplicated().size(), result.text());
        assertTrue(result.duplicated().size() > 1, result.text());
        assertEquals(0, result.tally().lost(), result.text());
        assertTrue(result.text().contains("taken 2 times"), result.text());
    }

    @Test
    @Timeout(60)
    void workersPushingAndPoppingAtOnceOnACorrectQueueAreValid() throws Exception
    {
        final Workload workload = new RedisQueueWorkload(2);
        final History history;
        try (HistoryRecorder recorder = new HistoryRecorder(null))
        {
            final WorkloadRunner runner =
                new WorkloadRunner(workload, new MapQueueStore(), recorder, 6, 2_000, 0, 200, 7).start();
            Thread.sleep(500);
            runner.close();
            final WorkloadRunner.FinalReads drained =
                runner.finalReads(TimeUnit.SECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(10));
            assertTrue(drained.unread().isEmpty(), drained.describe());
            history = recorder.history();
        }

        final CheckResult result = ResultDirectory.checkAndWrite(results, "queue in memory", workload.name(), history,
            List.of(), List.of(), Duration.ofSeconds(20));

        assertEquals(Verdict.VALID, result.verdict(), result::text);
    }

    @Test
    void aStoreWithoutBlockingPopsIsNamedWhenADequeueComes()
    {
        final RedisQueueWorkload workload = new RedisQueueWorkload(1);

        final IllegalArgumentException thrown = assertThrows(IllegalArgumentException.class, () -> workload.execute(
            new MapStore(), new Workload.Invocation(QueueChecker.DEQUEUE, "q0", null), System.nanoTime()));

        assertTrue(thrown.getMessage().contains("MapStore does not"), thrown.getMessage());
    }

    /** @return one process's operations one after another, each recorded, then a drain of every key. */
    private static History serialRun(final CheckedStore store)
    {
        final RedisQueueWorkload workload = new RedisQueueWorkload(2);
        final Random random = new Random(38);
        try (HistoryRecorder recorder = new HistoryRecorder(null))
        {
            for (int i = 0; i < OPERATIONS; i++)
            {
                run(recorder, workload, store, workload.next(random, 0));
            }
            for (final Workload.Invocation drain : workload.finalReads())
            {
                run(recorder, workload, store, drain);
            }
            return recorder.history();
        }
    }

    private static void run(
        final HistoryRecorder recorder, final Workload workload, final CheckedStore store,
        final Workload.Invocation invocation)
    {
        final Op invoke = recorder.invoke(0, invocation.f(), invocation.key(), invocation.value());
        recorder.ok(invoke, workload.execute(store, invocation, System.nanoTime() + SERIAL_DEADLINE_NANOS));
    }
}

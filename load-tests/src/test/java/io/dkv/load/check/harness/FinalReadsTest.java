package io.dkv.load.check.harness;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryRecorder;
import io.dkv.load.check.store.CheckedStore;
import io.dkv.load.check.store.MapStore;
import io.dkv.load.check.workload.RegisterWorkload;
import io.dkv.load.check.workload.WorkloadRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recovery phase's final reads: once the workload stops, each client reads every key, trying a failed read again
 * until its deadline; a run is recovered only when every client read every key, judged from the history alone.
 */
class FinalReadsTest
{
    private static final int KEYS = 4;
    private static final List<String> REGISTERS = List.of("r0", "r1", "r2", "r3");
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    @TempDir
    Path results;

    @Test
    @Timeout(60)
    void everyClientReadingEveryKeyIsARecoveryEvenAfterFailedTries() throws Exception
    {
        final long origin = System.nanoTime();
        try (HistoryRecorder recorder = new HistoryRecorder(null, origin))
        {
            final MapStore store = new MapStore();
            // client 1's first three reads fail, as while a restarted driver is attached to again
            final CheckedStore flaky = new FailingReads(store, 3);
            final WorkloadRunner client0 = runner(store, recorder, 0);
            final WorkloadRunner client1 = runner(flaky, recorder, 1);
            Thread.sleep(300);
            client0.close();
            client1.close();
            final long readsFrom = System.nanoTime() - origin;

            final WorkloadRunner.FinalReads reads0 = client0.finalReads(TIMEOUT_NANOS, PAUSE_NANOS);
            final WorkloadRunner.FinalReads reads1 = client1.finalReads(TIMEOUT_NANOS, PAUSE_NANOS);

            assertEquals(List.of(), reads0.unread());
            assertEquals(List.of(), reads1.unread());
            assertEquals(3, reads1.failedTries(), reads1::describe);
            final FinalReadsCheck.Recovery recovery = FinalReadsCheck.judge(recorder.history(), 2,
                CheckCluster.PROCESSES_PER_CLIENT, REGISTERS, new FinalReadsCheck.Phases(readsFrom / 2, readsFrom,
                    System.nanoTime() - origin));
            assertTrue(recovery.recovered(), recovery::text);
            assertTrue(recovery.text().contains("2 clients read all 4 keys") &&
                recovery.text().contains("3 tries failed"), recovery::text);
        }
    }

    @Test
    @Timeout(60)
    void aClientWhoseReadsFailUntilTheDeadlineMakesTheRunUnrecoveredWhateverTheChecker() throws Exception
    {
        final long origin = System.nanoTime();
        final History history;
        final long readsFrom;
        try (HistoryRecorder recorder = new HistoryRecorder(null, origin))
        {
            final MapStore store = new MapStore();
            final WorkloadRunner client0 = runner(store, recorder, 0);
            final WorkloadRunner client1 = runner(new FailingReads(store, Integer.MAX_VALUE), recorder, 1);
            Thread.sleep(300);
            client0.close();
            client1.close();
            readsFrom = System.nanoTime() - origin;
            client0.finalReads(TIMEOUT_NANOS, PAUSE_NANOS);
            final WorkloadRunner.FinalReads lost =
                client1.finalReads(TimeUnit.MILLISECONDS.toNanos(200), PAUSE_NANOS);

            assertEquals(KEYS, lost.unread().size(), lost::describe);
            assertTrue(lost.describe().startsWith("0 of 4 keys read"), lost::describe);
            history = recorder.history();
        }
        final FinalReadsCheck.Recovery recovery = FinalReadsCheck.judge(history, 2,
            CheckCluster.PROCESSES_PER_CLIENT, REGISTERS,
            new FinalReadsCheck.Phases(readsFrom, readsFrom, System.nanoTime() - origin));
        assertFalse(recovery.recovered(), recovery::text);
        assertTrue(recovery.text().contains("4 of 8 final reads") && recovery.text().contains("client 1 r0 (") &&
            !recovery.text().contains("client 0"), recovery::text);

        // the operations are linearizable (reads that failed changed nothing): the recovery alone decides
        final CheckResult result = ResultDirectory.checkAndWrite(results, "unrecovered", RegisterWorkload.NAME,
            history, List.of(), List.of(), Duration.ofSeconds(20), recovery);
        assertEquals(Verdict.UNRECOVERED, result.verdict(), result::text);
        assertEquals(5, result.verdict().exitCode());
        assertTrue(Files.readString(results.resolve(ResultDirectory.VERDICT)).startsWith("UNRECOVERED"));
        final String timeline = Files.readString(results.resolve(ResultDirectory.TIMELINE));
        assertTrue(timeline.contains(">final reads</text>") && timeline.contains(">heal</text>"), "phases drawn");
    }

    @Test
    void aClientThatNeverReadIsNamed()
    {
        final FinalReadsCheck.Recovery recovery = FinalReadsCheck.judge(History.of(List.of()), 1,
            CheckCluster.PROCESSES_PER_CLIENT, List.of("l0"), new FinalReadsCheck.Phases(0, 1, 2));

        assertFalse(recovery.recovered());
        assertTrue(recovery.text().contains("client 0 l0 (never read)"), recovery::text);
    }

    private static WorkloadRunner runner(final CheckedStore store, final HistoryRecorder recorder, final int client)
    {
        return new WorkloadRunner(new RegisterWorkload(KEYS, 0.5, 0.25), store, recorder, 2, 2_000,
            client * CheckCluster.PROCESSES_PER_CLIENT, 1_000, client).start();
    }

    /** A store whose final reads fail the first so many times. */
    private static final class FailingReads implements CheckedStore
    {
        private final CheckedStore store;
        private final AtomicInteger failuresLeft;

        FailingReads(final CheckedStore store, final int failures)
        {
            this.store = store;
            this.failuresLeft = new AtomicInteger(failures);
        }

        public byte[] get(final String key)
        {
            // the workload's workers read as ever: only the final reads, on the caller's thread, fail
            if (Thread.currentThread().getName().startsWith("check-worker-"))
            {
                return store.get(key);
            }
            if (failuresLeft.getAndDecrement() > 0)
            {
                throw new IllegalStateException("no driver to read " + key + " through");
            }
            return store.get(key);
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            return store.compareAndSet(key, expected, value);
        }

        public <T> T transact(final java.util.function.Function<TxnView, T> body)
        {
            return store.transact(body);
        }

        public java.util.List<java.util.List<byte[]>> listSteps(final java.util.List<ListStep> steps)
        {
            return store.listSteps(steps);
        }
    }
}

package io.dkv.load.check.workload;

import io.dkv.checker.history.History;
import io.dkv.checker.history.HistoryRecorder;
import io.dkv.load.check.store.CheckedStore;

import java.time.Duration;

/**
 * The harness's workload and recording without processes: workers in this JVM against a store
 * object, for stores that live in-process (and for testing the harness on stores known to be faulty).
 */
public final class InProcessCheck
{
    private InProcessCheck()
    {
    }

    /**
     * @return the history of {@code threads} workers running the workload on the store for {@code time}.
     */
    public static History run(
        final Workload workload, final CheckedStore store, final int threads, final double rate, final Duration time,
        final long seed) throws InterruptedException
    {
        try (HistoryRecorder recorder = new HistoryRecorder(null))
        {
            final WorkloadRunner runner =
                new WorkloadRunner(workload, store, recorder, threads, rate, 0, 1_000, seed).start();
            Thread.sleep(time.toMillis());
            runner.close();
            return recorder.history();
        }
    }
}

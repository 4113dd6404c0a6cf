package io.dkv.load.check.workload;

import io.dkv.checker.history.HistoryRecorder;
import io.dkv.checker.history.Op;
import io.dkv.load.check.store.CheckedStore;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Worker threads that invoke a workload's operations on a store at a given rate and record each
 * invocation and completion. A worker whose operation ended with an unknown outcome goes on as a
 * new process, as the history model requires.
 */
public final class WorkloadRunner implements AutoCloseable
{
    private final Workload workload;
    private final CheckedStore store;
    private final HistoryRecorder recorder;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final AtomicInteger nextProcess;
    private final List<Thread> workers = new ArrayList<>();
    private final long seed;
    private volatile boolean running = true;

    /**
     * @param threads     worker threads.
     * @param rate        operations per second of all workers together.
     * @param processBase the first process number; the workers take the following ones.
     * @param timeoutMs   how long one operation may take (a compare-and-set loop gives up after it).
     */
    public WorkloadRunner(
        final Workload workload,
        final CheckedStore store,
        final HistoryRecorder recorder,
        final int threads,
        final double rate,
        final int processBase,
        final long timeoutMs,
        final long seed)
    {
        if (threads < 1 || rate <= 0)
        {
            throw new IllegalArgumentException("a workload needs at least one thread and a positive rate: threads " +
                threads +
                ", rate " + rate);
        }
        this.workload = workload;
        this.store = store;
        this.recorder = recorder;
        this.intervalNanos = (long)(threads * 1e9 / rate);
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        this.nextProcess = new AtomicInteger(processBase);
        this.seed = seed;
        for (int i = 0; i < threads; i++)
        {
            final int worker = i;
            final Thread thread = new Thread(() -> work(worker), "check-worker-" + worker);
            thread.setDaemon(true);
            workers.add(thread);
        }
    }

    public WorkloadRunner start()
    {
        workers.forEach(Thread::start);
        return this;
    }

    /** Stop invoking; operations under way complete (within their timeout) before this returns. */
    public void close()
    {
        running = false;
        for (final Thread worker : workers)
        {
            try
            {
                worker.join(TimeUnit.NANOSECONDS.toMillis(timeoutNanos) * 2 + 1_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The final reads, once the workers stopped ({@link #close()}): every key read by a process of its own, a read
     * that fails tried again (each try recorded) until it is ok or {@code timeoutNanos} passed since this began.
     *
     * @param pauseNanos how long to wait before trying a failed read again.
     * @return what they found, for the client's report; the history says the same.
     */
    public FinalReads finalReads(final long timeoutNanos, final long pauseNanos)
    {
        final long start = System.nanoTime();
        final long deadline = start + timeoutNanos;
        final int process = nextProcess.getAndIncrement();
        final List<String> unread = new ArrayList<>();
        int failedTries = 0;
        for (final Workload.Invocation read : workload.finalReads())
        {
            boolean done = false;
            while (!done)
            {
                final Op invoke = recorder.invoke(process, read.f(), read.key(), read.value());
                try
                {
                    recorder.ok(invoke, workload.execute(store, read, Math.min(deadline, System.nanoTime() +
                        this.timeoutNanos)));
                    done = true;
                }
                catch (final RuntimeException ex)
                {
                    recorder.fail(invoke, describe(ex));
                    failedTries++;
                    if (System.nanoTime() + pauseNanos > deadline)
                    {
                        unread.add(read.target() + " (" + describe(ex) + ")");
                        break;
                    }
                    LockSupport.parkNanos(pauseNanos);
                }
            }
        }
        return new FinalReads(workload.finalReads().size(), unread, failedTries, System.nanoTime() - start);
    }

    /**
     * What one client's final reads found.
     *
     * @param keys        keys it read.
     * @param unread      the keys it could not read by the deadline, each with the last error.
     * @param failedTries reads that failed, those tried again since included.
     * @param nanos       how long they took.
     */
    public record FinalReads(int keys, List<String> unread, int failedTries, long nanos)
    {
        /** @return one line for the client's report. */
        public String describe()
        {
            return String.format(Locale.ROOT, "%d of %d keys read in %.3f s, %d tries failed%s",
                keys - unread.size(), keys, nanos / 1e9, failedTries,
                unread.isEmpty() ? "" : "; not read: " + String.join("; ", unread));
        }
    }

    private void work(final int worker)
    {
        final Random random = new Random(seed * 1_000_003L + worker);
        int process = nextProcess.getAndIncrement();
        // start at a random phase so the workers do not invoke in lockstep
        long next = System.nanoTime() + (long)(random.nextDouble() * intervalNanos);
        while (running)
        {
            final long wait = next - System.nanoTime();
            if (wait > 0)
            {
                LockSupport.parkNanos(wait);
                continue;
            }
            next += (long)(intervalNanos * (0.5 + random.nextDouble()));
            final Workload.Invocation invocation = workload.next(random, process);
            final Op invoke = recorder.invoke(process, invocation.f(), invocation.key(), invocation.value());
            try
            {
                recorder.ok(invoke, workload.execute(store, invocation, System.nanoTime() + timeoutNanos));
            }
            catch (final Workload.FailedOperation ex)
            {
                recorder.fail(invoke, ex.getMessage());
            }
            catch (final RuntimeException ex)
            {
                if (isRead(invocation))
                {
                    // a read changes nothing: it failed, whatever went wrong
                    recorder.fail(invoke, describe(ex));
                }
                else
                {
                    recorder.info(invoke, describe(ex));
                    process = nextProcess.getAndIncrement();
                }
            }
            if (System.nanoTime() - next > TimeUnit.SECONDS.toNanos(1))
            {
                next = System.nanoTime(); // after a stall, do not burst to catch up
            }
        }
    }

    private static boolean isRead(final Workload.Invocation invocation)
    {
        if (Op.READ.equals(invocation.f()))
        {
            return true;
        }
        if (Op.TXN.equals(invocation.f()))
        {
            for (final Object microOp : (List<?>)invocation.value())
            {
                if (!Op.READ_LIST.equals(((List<?>)microOp).get(0)))
                {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private static String describe(final RuntimeException ex)
    {
        final String message = ex.getMessage();
        return ex.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}

package io.dkv.load.bench.ycsb;

import org.HdrHistogram.Histogram;
import site.ycsb.DB;
import site.ycsb.Workload;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Runs YCSB phases on a store: client threads, each with its own DB instance (as YCSB makes them),
 * calling {@link CoreWorkload#doInsert} (load) or {@link CoreWorkload#doTransaction} (a workload)
 * through a {@link TimedDb}, with a progress bar on the terminal while they run.
 *
 * <p>The threads are kept for the whole benchmark: a dkv client keeps per-thread sessions
 * (connections, buffers, heap chunks), which fresh threads for every run would pile up. A run of n
 * threads always uses the first n, so that what a thread was given (a dkv client's lane) is the same
 * from run to run.
 */
final class YcsbRunner implements AutoCloseable
{
    private static final long PROGRESS_INTERVAL_MS = 200;
    /** Operations a thread does between updates of the shared progress count. */
    private static final int PROGRESS_BATCH = 64;

    private final ExecutorService[] threads;
    private final ProgressBar progress;

    YcsbRunner(final int maxThreads, final ProgressBar progress)
    {
        this.threads = new ExecutorService[maxThreads];
        for (int i = 0; i < maxThreads; i++)
        {
            final String name = "ycsb-client-" + (i + 1);
            threads[i] = Executors.newSingleThreadExecutor(task ->
            {
                final Thread thread = new Thread(task, name);
                thread.setDaemon(true);
                return thread;
            });
        }
        this.progress = progress;
    }

    /**
     * Run {@code task} on each client thread in turn, the first thread first, each done before the
     * next starts: what a thread takes on first use (a dkv client's lane, given in order) then goes
     * by the thread's number.
     */
    void onEachThreadInOrder(final Runnable task) throws InterruptedException
    {
        for (final ExecutorService thread : threads)
        {
            try
            {
                thread.submit(task).get();
            }
            catch (final ExecutionException ex)
            {
                throw new IllegalStateException("a client thread failed: " + ex.getCause(), ex.getCause());
            }
        }
    }

    /**
     * Insert records {@code 0 .. recordcount - 1} of the properties, as YCSB's load phase does.
     */
    RunResult load(
        final String label, final Store store, final Supplier<DB> dbs, final Properties properties, final int threads,
        final CpuClock server) throws InterruptedException
    {
        final long records = Long.parseLong(properties.getProperty("recordcount"));
        return run(label, store, dbs, properties, threads, records, true, server);
    }

    /**
     * Run {@code operations} transactions of the workload the properties describe, split over the threads.
     *
     * @param server the CPU time of the store's own process when it runs apart from this one, else {@link
     * CpuClock#NONE}.
     */
    RunResult transactions(
        final String label, final Store store, final Supplier<DB> dbs, final Properties properties, final int threads,
        final long operations, final CpuClock server) throws InterruptedException
    {
        return run(label, store, dbs, properties, threads, operations, false, server);
    }

    private RunResult run(
        final String label,
        final Store store,
        final Supplier<DB> dbs,
        final Properties properties,
        final int threads,
        final long operations,
        final boolean load,
        final CpuClock server) throws InterruptedException
    {
        if (threads > this.threads.length)
        {
            throw new IllegalArgumentException(threads + " threads asked of a runner of " + this.threads.length);
        }
        final Workload workload = workload(properties);
        final CountDownLatch ready = new CountDownLatch(threads);
        final CountDownLatch start = new CountDownLatch(1);
        final CountDownLatch finished = new CountDownLatch(threads);
        final LongAdder done = new LongAdder();
        final List<Future<TimedDb>> clients = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++)
        {
            final int thread = i;
            final long share = operations / threads + (i < operations % threads ? 1 : 0);
            clients.add(this.threads[i].submit(() ->
            {
                try
                {
                    final TimedDb db = new TimedDb(dbs.get());
                    db.setProperties(properties);
                    db.init();
                    final Object state = workload.initThread(properties, thread, threads);
                    ready.countDown();
                    start.await();
                    final long cpuAtStart = CpuClock.currentThreadNanos();
                    try
                    {
                        runOperations(workload, db, state, share, load, done);
                        db.cpuNanos = CpuClock.currentThreadNanos() - cpuAtStart;
                    }
                    finally
                    {
                        db.cleanup();
                    }
                    return db;
                }
                finally
                {
                    ready.countDown();
                    finished.countDown();
                }
            }));
        }
        ready.await();
        final long processCpuAtStart = CpuClock.PROCESS.nanos();
        final long serverCpuAtStart = server.nanos();
        final long startNanos = System.nanoTime();
        start.countDown();
        progress.show(label, 0, operations, 0);
        while (!finished.await(PROGRESS_INTERVAL_MS, TimeUnit.MILLISECONDS))
        {
            progress.show(label, done.sum(), operations, System.nanoTime() - startNanos);
        }
        final long elapsedNanos = System.nanoTime() - startNanos;
        final long processCpuNanos = CpuClock.PROCESS.nanos() - processCpuAtStart;
        final long serverCpuNanos = server.nanos() - serverCpuAtStart;
        progress.clear();
        return result(label, store, threads, operations, elapsedNanos, processCpuNanos, serverCpuNanos, clients);
    }

    private static void runOperations(
        final Workload workload, final DB db, final Object state, final long operations, final boolean load,
        final LongAdder done)
    {
        int unreported = 0;
        for (long i = 0; i < operations; i++)
        {
            if (load)
            {
                workload.doInsert(db, state);
            }
            else
            {
                workload.doTransaction(db, state);
            }
            if (++unreported == PROGRESS_BATCH)
            {
                done.add(unreported);
                unreported = 0;
            }
        }
        done.add(unreported);
    }

    private static RunResult result(
        final String label, final Store store, final int threads, final long operations, final long elapsedNanos,
        final long processCpuNanos, final long serverCpuNanos,
        final List<Future<TimedDb>> clients) throws InterruptedException
    {
        final Histogram latency = new Histogram(3);
        final Histogram reads = new Histogram(3);
        long failures = 0;
        long clientCpuNanos = 0;
        String firstFailure = null;
        for (final Future<TimedDb> client : clients)
        {
            final TimedDb db;
            try
            {
                db = client.get();
            }
            catch (final ExecutionException ex)
            {
                throw new IllegalStateException(label + ": a client thread failed: " + ex.getCause(), ex.getCause());
            }
            latency.add(db.latency);
            reads.add(db.reads);
            failures += db.failures;
            clientCpuNanos += db.cpuNanos;
            if (firstFailure == null)
            {
                firstFailure = db.firstFailure;
            }
        }
        return new RunResult(store, threads, operations, elapsedNanos, latency, reads, failures, firstFailure,
            new CpuTimes(clientCpuNanos, processCpuNanos, serverCpuNanos));
    }

    private static Workload workload(final Properties properties)
    {
        // CoreWorkload times its read-modify-writes into YCSB's global measurements, which must exist first
        Measurements.setProperties(properties);
        final CoreWorkload workload = new CoreWorkload();
        try
        {
            workload.init(properties);
        }
        catch (final WorkloadException ex)
        {
            throw new IllegalArgumentException("YCSB refused the workload " + properties + ": " + ex.getMessage(), ex);
        }
        return workload;
    }

    public void close()
    {
        for (final ExecutorService thread : threads)
        {
            thread.shutdownNow();
        }
    }
}

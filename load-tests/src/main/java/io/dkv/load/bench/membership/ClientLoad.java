package io.dkv.load.bench.membership;

import io.dkv.client.KvClient;
import io.dkv.client.KvException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady load on the loaded keys while the cluster changes under it: reader threads get random keys and check each
 * value is one of its key's, writer threads put new versions of random keys, each thread at its share of a fixed rate
 * (open loop). An operation's latency runs from when it was due, so a thread held up (a write waiting out the switch
 * phase) counts the wait for every operation behind it as well, as a client with requests queued would see it.
 * Latencies go to HdrHistogram recorders; a window takes what was recorded since it began.
 */
final class ClientLoad implements AutoCloseable
{
    static final long HIGHEST_LATENCY_NS = TimeUnit.MINUTES.toNanos(5);

    private final KvClient client;
    private final KeySpace keySpace;
    private final long intervalNs;
    private final Recorder reads = new Recorder(HIGHEST_LATENCY_NS, 3);
    private final Recorder updates = new Recorder(HIGHEST_LATENCY_NS, 3);
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    private String windowName;
    private long windowStart;

    /**
     * @param rate    operations a second, all threads together.
     * @param readers threads that read.
     * @param writers threads that update.
     */
    ClientLoad(final KvClient client, final KeySpace keySpace, final int rate, final int readers, final int writers)
    {
        this.client = client;
        this.keySpace = keySpace;
        this.intervalNs = TimeUnit.SECONDS.toNanos(1) * (readers + writers) / rate;
        for (int r = 0; r < readers; r++)
        {
            threads.add(Thread.ofPlatform().name("dkv-bench-membership-reader-" + r).start(this::read));
        }
        for (int w = 0; w < writers; w++)
        {
            threads.add(Thread.ofPlatform().name("dkv-bench-membership-writer-" + w).start(this::write));
        }
    }

    /** Begin a window: what was recorded before it is dropped. */
    void begin(final String name)
    {
        reads.getIntervalHistogram();
        updates.getIntervalHistogram();
        failed.set(0);
        firstFailure.set(null);
        windowName = name;
        windowStart = System.nanoTime();
    }

    /** @return what was recorded since {@link #begin(String)}. */
    Window end()
    {
        final long nanos = System.nanoTime() - windowStart;
        final Histogram readLatencies = reads.getIntervalHistogram();
        final Histogram updateLatencies = updates.getIntervalHistogram();
        return new Window(windowName, nanos, readLatencies, updateLatencies, failed.get(), firstFailure.get());
    }

    private void read()
    {
        run(random ->
        {
            final int index = random.nextInt(keySpace.keys());
            final String mismatch = keySpace.mismatch(index, client.get(keySpace.key(index)));
            if (mismatch != null)
            {
                fail("read: " + mismatch);
            }
            return reads;
        });
    }

    private void write()
    {
        run(random ->
        {
            final int index = random.nextInt(keySpace.keys());
            client.put(keySpace.key(index), keySpace.value(index, random.nextLong(1, Long.MAX_VALUE)));
            return updates;
        });
    }

    private interface Operation
    {
        /** @return the recorder its latency goes to. */
        Recorder run(ThreadLocalRandom random);
    }

    private void run(final Operation operation)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        long due = System.nanoTime();
        while (running)
        {
            final long now = System.nanoTime();
            if (now < due)
            {
                LockSupport.parkNanos(due - now);
                continue;
            }
            try
            {
                final Recorder recorder = operation.run(random);
                recorder.recordValue(Math.min(System.nanoTime() - due, HIGHEST_LATENCY_NS));
            }
            catch (final RuntimeException ex)
            {
                // a KvException as a rule; anything else fails the operation too, and the load goes on
                fail(ex instanceof KvException ? ex.getMessage() : ex.toString());
            }
            due += intervalNs;
        }
    }

    private void fail(final String what)
    {
        failed.incrementAndGet();
        firstFailure.compareAndSet(null, what);
    }

    public void close()
    {
        running = false;
        for (final Thread thread : threads)
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

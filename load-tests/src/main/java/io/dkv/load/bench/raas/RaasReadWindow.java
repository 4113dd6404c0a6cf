package io.dkv.load.bench.raas;

import io.dkv.load.bench.OffsetCursor;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import org.agrona.concurrent.IdleStrategy;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One thread keeping a window of asynchronous READs in flight over many logical connections, each
 * request going to the next connection in turn. It is also the connections' completion handler:
 * completions arrive on whichever thread polls (this one, or the driver's Poller), so it only counts.
 */
final class RaasReadWindow implements CompletionHandler
{
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile int lastFailure = RaasStatus.SUCCESS;
    private final Raas raas;
    private final RemoteRegion region;
    private final MemorySegment buffers;
    private final int size;
    private final int window;
    private final OffsetCursor offsets;
    private final IdleStrategy idleStrategy = Waiting.newIdleStrategy();
    private Connection[] connections;
    private int nextConnection;
    private int nextBuffer;

    /**
     * @param raas    the client driver.
     * @param region  the region read.
     * @param buffers where READs land: {@code window} slots of {@code size} bytes, each 64-byte aligned.
     * @param size    bytes per READ.
     * @param window  READs in flight.
     * @param offsets offsets into the region, see {@link io.dkv.load.bench.RandomOffsets}.
     */
    RaasReadWindow(
        final Raas raas, final RemoteRegion region, final MemorySegment buffers, final int size, final int window,
        final long[] offsets)
    {
        if ((long)slotStride(size) * window > buffers.byteSize())
        {
            throw new IllegalArgumentException(window + " slots for " + size + "-byte READs do not fit " +
                buffers.byteSize() + " bytes");
        }
        this.raas = raas;
        this.region = region;
        this.buffers = buffers;
        this.size = size;
        this.window = window;
        this.offsets = new OffsetCursor(offsets);
    }

    static int slotStride(final int size)
    {
        return (size + 63) & -64;
    }

    /**
     * @param connections the logical connections requests go to, in turn.
     */
    void use(final Connection[] connections)
    {
        this.connections = connections;
        this.nextConnection = 0;
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        if (status != RaasStatus.SUCCESS)
        {
            lastFailure = status;
            failed.incrementAndGet();
        }
        completed.incrementAndGet();
    }

    /**
     * Run {@code count} READs and wait for all of them.
     *
     * @return nanoseconds it took.
     */
    long run(final int count)
    {
        final Connection[] connections = this.connections;
        final long base = completed.get();
        final long target = base + count;
        final int stride = slotStride(size);
        long issued = 0;
        long lastDone = base;
        long lastProgress = System.nanoTime();
        int emptyWaits = 0;
        idleStrategy.reset();
        final long start = lastProgress;
        long done;
        while ((done = completed.get()) < target)
        {
            if (issued < count && issued - (done - base) < window)
            {
                final Connection connection = connections[nextConnection];
                if (++nextConnection == connections.length)
                {
                    nextConnection = 0;
                }
                connection.readAsync(region, offsets.next(), buffers, (long)nextBuffer * stride, size,
                    issued);
                if (++nextBuffer == window)
                {
                    nextBuffer = 0;
                }
                issued++;
                if (issued == count || issued - (completed.get() - base) >= window)
                {
                    connection.flush();
                }
                continue;
            }
            if (raas.poll() > 0 || done != lastDone)
            {
                lastDone = done;
                lastProgress = System.nanoTime();
                idleStrategy.reset();
                continue;
            }
            if (++emptyWaits == Waiting.WAITS_PER_CLOCK_CHECK)
            {
                emptyWaits = 0;
                checkTimeout(lastProgress, issued, done - base, count);
            }
            idleStrategy.idle();
        }
        final long elapsed = System.nanoTime() - start;
        final long failures = failed.getAndSet(0);
        if (failures > 0)
        {
            throw new IllegalStateException(failures + " of " + count + " READs over " + connections.length +
                " connections failed, the last with " + RaasStatus.describe(lastFailure));
        }
        return elapsed;
    }

    private void checkTimeout(final long since, final long issued, final long done, final int count)
    {
        final long waited = System.nanoTime() - since;
        if (waited > Waiting.TIMEOUT_NANOS)
        {
            throw new IllegalStateException("no READ completed for " + TimeUnit.NANOSECONDS.toMillis(waited) +
                " ms over " + connections.length + " connections: " + done + " of " + count + " completed, " + issued +
                " issued");
        }
    }
}

package io.dkv.compute.blocking;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One connection blocked on keys (BLPOP, BLMOVE, BZPOPMIN ...): it is served ({@link Attempt} took something), times
 * out, is unblocked (CLIENT UNBLOCK) or goes with its connection, whichever comes first; the others then find it done.
 *
 * <p>It is served on the thread of the write that readied its key, or on a store thread the write's connection waits
 * for (so that the write is answered after the waiters it woke, as redis answers it), its timeout and CLIENT UNBLOCK
 * come on its connection's loop, its connection's end on that loop too: its state is atomic. While it is being served,
 * an end that comes is held and takes effect if the run took nothing. Its reply always goes to its connection on that
 * connection's loop.
 */
public final class Waiter
{
    /** The blocked command run again, as it would run unblocked: its reply when it took something, else null. */
    @FunctionalInterface
    public interface Attempt
    {
        ByteBuf attempt();
    }

    private static final int WAITING = 0;
    private static final int SERVING = 1;
    private static final int DONE = 2;

    private final long connectionId;
    private final byte[][] keys;
    private final EventExecutor loop;
    private final Attempt attempt;
    private final Consumer<ByteBuf> resume;
    private final ByteBuf timedOut;
    private final AtomicInteger state = new AtomicInteger(WAITING);
    /** A round found it being served: the run under way may have read before the write that readied its key. */
    private final AtomicBoolean missed = new AtomicBoolean();
    /** When it blocked, on the pool's clock: the pool's longest waiter of a key has the smallest. */
    private long stamp;
    private volatile ScheduledFuture<?> timeout;
    /** An end that came while it was being served: its reply, {@link #TIMED_OUT} or {@link #GONE}. */
    private final AtomicReference<Object> heldEnd = new AtomicReference<>();
    private volatile Runnable whenDone = () ->
    {
    };
    private static final Object GONE = new Object();
    private static final Object TIMED_OUT = new Object();

    /**
     * @param connectionId the blocked connection's id (CLIENT UNBLOCK's).
     * @param keys         what it waits on, in the order named (each once).
     * @param loop         the connection's event loop.
     * @param attempt      runs the command again.
     * @param resume       takes the reply and lets the connection run its next requests, on its loop.
     * @param timedOut     the reply when it times out (redis's null array); this waiter's to release.
     */
    public Waiter(final long connectionId, final byte[][] keys, final EventExecutor loop, final Attempt attempt,
        final Consumer<ByteBuf> resume, final ByteBuf timedOut)
    {
        this.connectionId = connectionId;
        this.keys = distinct(keys);
        this.loop = loop;
        this.attempt = attempt;
        this.resume = resume;
        this.timedOut = timedOut;
    }

    /** A key named twice (BLPOP k k 0) is waited on once. */
    private static byte[][] distinct(final byte[][] keys)
    {
        final Set<ByteBuffer> seen = new LinkedHashSet<>();
        for (final byte[] key : keys)
        {
            seen.add(ByteBuffer.wrap(key));
        }
        if (seen.size() == keys.length)
        {
            return keys;
        }
        return seen.stream().map(ByteBuffer::array).toArray(byte[][]::new);
    }

    public long connectionId()
    {
        return connectionId;
    }

    byte[][] keys()
    {
        return keys;
    }

    EventExecutor loop()
    {
        return loop;
    }

    long stamp()
    {
        return stamp;
    }

    /** @param stamp when it blocked, set once before it is queued on its keys. */
    void stamp(final long stamp)
    {
        this.stamp = stamp;
    }

    /** @param action run once, on whichever thread ends it, when it is served, times out, is unblocked or gone. */
    void whenDone(final Runnable action)
    {
        this.whenDone = action;
    }

    /** @return true once served, timed out, unblocked or gone. */
    public boolean done()
    {
        return state.get() == DONE;
    }

    /** Time out after {@code millis} (0: never). */
    public void expireAfter(final long millis, final Runnable expire)
    {
        if (millis > 0)
        {
            timeout = loop.schedule(expire, millis, TimeUnit.MILLISECONDS);
        }
    }

    /** What a run of {@link #serve()} came to. */
    static final int TOOK = 1;
    static final int NOTHING = 0;
    /** Not run: it is being served on another thread, or it is done. */
    static final int PASSED = -1;

    /**
     * Run the command again, on any thread; a waiter done is left alone. One being served on another thread is left to
     * that run, told to run once more if it took nothing: it may have read the key before the write that readied it.
     *
     * @return {@link #TOOK} when it took something and was answered, {@link #NOTHING} when it took nothing and waits
     * on, {@link #PASSED} when it was not run here.
     */
    int serve()
    {
        int result = PASSED;
        while (true)
        {
            if (state.compareAndSet(WAITING, SERVING))
            {
                if (runOnce())
                {
                    return TOOK;
                }
                result = NOTHING;
                if (!missed.getAndSet(false))
                {
                    return result;
                }
                continue;
            }
            if (state.get() != SERVING)
            {
                return result;
            }
            missed.set(true);
            if (state.get() == SERVING)
            {
                // the run under way reads the flag once it is back to waiting
                return result;
            }
        }
    }

    /** @return true when the run took something (and the waiter is done and answered). */
    private boolean runOnce()
    {
        ByteBuf reply = null;
        try
        {
            reply = attempt.attempt();
        }
        finally
        {
            if (reply != null)
            {
                state.set(DONE);
                final Object held = heldEnd.getAndSet(null);
                if (held instanceof ByteBuf unused)
                {
                    unused.release();
                }
                answer(reply);
            }
            else
            {
                state.set(WAITING);
                endHeld();
            }
        }
        return reply != null;
    }

    /** An end that came while it was served, and found it still waiting after: it takes effect now. */
    private void endHeld()
    {
        final Object held = heldEnd.getAndSet(null);
        if (held != null)
        {
            if (held == GONE)
            {
                abandon();
            }
            else
            {
                end(held == TIMED_OUT ? null : (ByteBuf)held);
            }
        }
    }

    /**
     * Answer {@code reply} (the timeout's when null) unless done already; held while it is being served.
     *
     * @return whether it answered now.
     */
    boolean end(final ByteBuf reply)
    {
        if (state.compareAndSet(WAITING, DONE))
        {
            answer(reply == null ? timedOut.retain() : reply);
            return true;
        }
        if (state.get() == SERVING)
        {
            heldEnd.set(reply == null ? TIMED_OUT : reply);
            if (state.get() == WAITING)
            {
                // the run ended meanwhile, taking nothing: end it here
                endHeld();
            }
            return false;
        }
        if (reply != null)
        {
            reply.release();
        }
        return false;
    }

    /** The connection went: nothing is answered. @return whether it was waiting. */
    boolean abandon()
    {
        if (state.compareAndSet(WAITING, DONE))
        {
            cancelTimeout();
            timedOut.release();
            whenDone.run();
            return true;
        }
        if (state.get() == SERVING)
        {
            heldEnd.set(GONE);
            if (state.get() == WAITING)
            {
                endHeld();
            }
        }
        return false;
    }

    /** The reply goes to the connection on its loop, which lets it run its next requests. */
    private void answer(final ByteBuf reply)
    {
        cancelTimeout();
        timedOut.release();
        whenDone.run();
        if (loop.inEventLoop())
        {
            resume.accept(reply);
        }
        else
        {
            loop.execute(() -> resume.accept(reply));
        }
    }

    private void cancelTimeout()
    {
        final ScheduledFuture<?> scheduled = timeout;
        if (scheduled != null)
        {
            scheduled.cancel(false);
            timeout = null;
        }
    }
}

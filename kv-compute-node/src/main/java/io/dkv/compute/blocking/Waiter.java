package io.dkv.compute.blocking;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.nio.ByteBuffer;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One connection blocked on keys (BLPOP, BLMOVE, BZPOPMIN ...), touched on its connection's event loop only: it is
 * served ({@link Attempt} took something and wrote its reply), times out, is unblocked (CLIENT UNBLOCK) or goes with
 * its connection, whichever comes first; the others then find it done.
 */
public final class Waiter
{
    /** The blocked command run again, as it would run unblocked: its reply when it took something, else null. */
    @FunctionalInterface
    public interface Attempt
    {
        ByteBuf attempt();
    }

    private final long connectionId;
    private final byte[][] keys;
    private final EventExecutor loop;
    private final Attempt attempt;
    private final Consumer<ByteBuf> resume;
    private final ByteBuf timedOut;
    private ScheduledFuture<?> timeout;
    private boolean done;

    /**
     * @param connectionId the blocked connection's id (CLIENT UNBLOCK's).
     * @param keys         what it waits on, in the order named (each once).
     * @param loop         the connection's event loop.
     * @param attempt      runs the command again.
     * @param resume       takes the reply and lets the connection run its next requests.
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

    /** @return true once served, timed out, unblocked or gone. */
    public boolean done()
    {
        return done;
    }

    /** Time out after {@code millis} (0: never). */
    public void expireAfter(final long millis, final Runnable expire)
    {
        if (millis > 0)
        {
            timeout = loop.schedule(expire, millis, TimeUnit.MILLISECONDS);
        }
    }

    /** On the loop: run the command again. @return true when it took something and was answered. */
    boolean serve()
    {
        if (done)
        {
            return false;
        }
        final ByteBuf reply = attempt.attempt();
        if (reply == null)
        {
            return false;
        }
        finish(reply);
        return true;
    }

    /** On the loop: answer {@code reply} (the timeout's when null) unless done already. @return whether it did. */
    boolean end(final ByteBuf reply)
    {
        if (done)
        {
            if (reply != null)
            {
                reply.release();
            }
            return false;
        }
        finish(reply == null ? timedOut.retain() : reply);
        return true;
    }

    /** On the loop: the connection went; nothing is answered. */
    void abandon()
    {
        if (!done)
        {
            done = true;
            cancelTimeout();
            timedOut.release();
        }
    }

    private void finish(final ByteBuf reply)
    {
        done = true;
        cancelTimeout();
        timedOut.release();
        resume.accept(reply);
    }

    private void cancelTimeout()
    {
        if (timeout != null)
        {
            timeout.cancel(false);
            timeout = null;
        }
    }
}

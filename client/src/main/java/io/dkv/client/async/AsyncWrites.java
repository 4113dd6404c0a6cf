package io.dkv.client.async;

import io.dkv.client.KvClientContext;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.node.WriteEpochs;
import io.dkv.raas.Raas;

/**
 * A thread's {@link AsyncWrite}s: up to {@link #inFlight} writes it has in flight at once, from its driver's credits
 * per connection. Past the bound, writes go to the client's threads.
 */
public final class AsyncWrites extends AsyncPool<AsyncWrite>
{
    /** Requests of each replica's connection a write holds at most at once: its first round, block and buckets. */
    static final int REQUESTS_PER_WRITE = 3;

    private final Raas raas;
    private final long timeoutMs;
    private final WriteEpochs epochs;
    private final int replicas;
    private final MembershipView membership;

    /**
     * @param slowPath where a write goes that its completions cannot carry: the synchronous write, or the rest of
     *                 its chain, on one of the client's threads.
     */
    public AsyncWrites(final Raas raas, final KvClientContext context, final MembershipView membership,
        final AsyncSlowPath slowPath)
    {
        super(inFlight(raas.connectionCredits()), raas, context, slowPath);
        this.raas = raas;
        this.timeoutMs = context.timeoutMs();
        this.epochs = context.writeEpochs();
        this.replicas = Math.max(1, membership.replicas());
        this.membership = membership;
    }

    /**
     * Writes a thread keeps in flight at once: however many go to one replica, their requests must never wait for a
     * credit of its connection (the thread delivering completions posts the next round, and would wait for itself),
     * so this is the credits over {@link #REQUESTS_PER_WRITE}, rounded down (21 of the driver's default 64; none,
     * every write the synchronous way, below 3).
     *
     * @param connectionCredits the handle's credits per connection ({@link Raas#connectionCredits()}).
     */
    public static int inFlight(final int connectionCredits)
    {
        return connectionCredits / REQUESTS_PER_WRITE;
    }

    /** @return the client's durable epochs, which the blocks its writes replace raise. */
    WriteEpochs epochs()
    {
        return epochs;
    }

    AsyncWrite create(final int index)
    {
        return new AsyncWrite(index, this, raas, replicas, timeoutMs);
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        final AsyncWrite write = operation((int)(token >>> 40));
        if (write != null && write.isToken(token))
        {
            write.onCompletion((int)(token >>> 32) & 0xff, status, value);
        }
    }

    long epoch()
    {
        return membership.epoch();
    }
}

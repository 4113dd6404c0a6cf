package io.dkv.client.async;

import io.dkv.client.Durability;
import io.dkv.client.KvClientContext;
import io.dkv.client.membership.MembershipView;
import io.dkv.raas.Raas;

/**
 * A thread's {@link AsyncWrite}s: up to {@link #IN_FLIGHT} writes it has in flight at once. Past the bound, writes
 * go to the client's threads.
 */
public final class AsyncWrites extends AsyncPool<AsyncWrite>
{
    /**
     * Writes in flight at once: a write's first round holds three requests of each replica's connection (the block
     * and two buckets), which must never wait for a credit (the thread delivering completions posts the next round,
     * and would wait for itself), so this is a third of the driver's default credits per connection, rounded down.
     */
    public static final int IN_FLIGHT = 16;

    private final Raas raas;
    private final long timeoutMs;
    private final int replicas;
    private final boolean durable;
    private final MembershipView membership;

    /**
     * @param slowPath where a write goes that its completions cannot carry: the synchronous write, or the rest of
     *                 its chain, on one of the client's threads.
     */
    public AsyncWrites(final Raas raas, final KvClientContext context, final MembershipView membership,
        final AsyncSlowPath slowPath)
    {
        super(IN_FLIGHT, raas, context, slowPath);
        this.raas = raas;
        this.timeoutMs = context.timeoutMs();
        this.replicas = Math.max(1, membership.replicas());
        this.durable = context.durability() != Durability.NONE;
        this.membership = membership;
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

    /** @return true when a write tells the nodes (the client's durability is not NONE). */
    boolean durable()
    {
        return durable;
    }

    long epoch()
    {
        return membership.epoch();
    }
}

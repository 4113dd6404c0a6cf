package io.dkv.client.async;

import io.dkv.client.KvClientContext;
import io.dkv.raas.Raas;

import java.util.concurrent.CompletableFuture;

/**
 * A thread's {@link AsyncGet}s: up to {@link #IN_FLIGHT} GETs it has in flight at once. Past the bound, GETs go to
 * the client's threads.
 */
public final class AsyncGets extends AsyncPool<AsyncGet>
{
    /**
     * GETs in flight at once: a GET holds at most two requests of its node's connection, which must never wait for
     * a credit (the thread delivering completions posts the next step, and would wait for itself), so this is half
     * the driver's default credits per connection.
     */
    public static final int IN_FLIGHT = 32;

    private final Raas raas;
    private final long timeoutMs;

    /**
     * @param slowPath answers a GET the completions could not: the synchronous GET on one of the client's threads.
     */
    public AsyncGets(final Raas raas, final KvClientContext context, final AsyncSlowPath slowPath)
    {
        super(IN_FLIGHT, raas, context, slowPath);
        this.raas = raas;
        this.timeoutMs = context.timeoutMs();
    }

    AsyncGet create(final int index)
    {
        return new AsyncGet(index, this, raas, timeoutMs);
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        final AsyncGet get = operation((int)(token >>> 32));
        if (get != null && get.isToken(token))
        {
            get.onCompletion(status);
        }
    }

    void fallBack(final int kind, final byte[] key, final CompletableFuture<Object> future)
    {
        slowPath().get(kind, key, future);
    }
}

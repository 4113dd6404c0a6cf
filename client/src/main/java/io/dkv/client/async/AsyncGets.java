package io.dkv.client.async;

import io.dkv.client.KvClientContext;
import io.dkv.client.node.WriteEpochs;
import io.dkv.raas.Raas;

import java.util.concurrent.CompletableFuture;

/**
 * A thread's {@link AsyncGet}s: up to {@link #inFlight} GETs it has in flight at once, from its driver's credits per
 * connection. Past the bound, GETs go to the client's threads.
 */
public final class AsyncGets extends AsyncPool<AsyncGet>
{
    /** Requests of its node's connection a GET holds at most at once (its second READ is posted by the first's). */
    static final int REQUESTS_PER_GET = 2;

    private final Raas raas;
    private final long timeoutMs;
    private final WriteEpochs epochs;

    /**
     * @param slowPath answers a GET the completions could not: the synchronous GET on one of the client's threads.
     */
    public AsyncGets(final Raas raas, final KvClientContext context, final AsyncSlowPath slowPath)
    {
        super(inFlight(raas.connectionCredits()), raas, context, slowPath);
        this.raas = raas;
        this.timeoutMs = context.timeoutMs();
        this.epochs = context.writeEpochs();
    }

    /**
     * GETs a thread keeps in flight at once: however many go to one node, their requests must never wait for a
     * credit of its connection (the thread delivering completions posts the next step, and would wait for itself),
     * so this is the credits over {@link #REQUESTS_PER_GET}, rounded down (32 of the driver's default 64; none,
     * every GET the synchronous way, below 2).
     *
     * @param connectionCredits the handle's credits per connection ({@link Raas#connectionCredits()}).
     */
    public static int inFlight(final int connectionCredits)
    {
        return connectionCredits / REQUESTS_PER_GET;
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

    /** @return the client's durable epochs, which the blocks its GETs answer raise. */
    WriteEpochs epochs()
    {
        return epochs;
    }
}

package io.dkv.client.txn;

import io.dkv.client.Versioned;
import io.dkv.client.async.AsyncWrite;

import java.util.concurrent.CompletableFuture;

/**
 * A raw swap carried by completions, made ready on the committing thread (its block's room taken, its words drawn)
 * and started by {@link #start}, which only posts requests (client/README.md, "Parallel commit"). Compared by write id
 * only.
 */
public final class PreparedSwap
{
    private final AsyncWrite write;
    private final CompletableFuture<Object> done;

    /** For {@link CommitKeys}: {@code write} was prepared with {@code done} as its future. */
    public PreparedSwap(final AsyncWrite write, final CompletableFuture<Object> done)
    {
        this.write = write;
        this.done = done;
    }

    /**
     * Start it: the key from the block whose write id {@code from} names, or where {@code from} is null, from no
     * block (placed only where the key holds nothing).
     *
     * @return completes with the version put in place, null when the key holds another block; exceptionally when
     * its outcome is unknown.
     */
    public CompletableFuture<Versioned> start(final Versioned from)
    {
        write.go(from);
        return done.thenApply(answer -> answer instanceof Versioned placed ? placed : null);
    }

    /** Never to be started: its room given back. */
    public void cancel()
    {
        write.cancel();
    }
}

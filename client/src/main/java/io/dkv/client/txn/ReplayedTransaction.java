package io.dkv.client.txn;

import io.dkv.client.Versioned;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A transaction whose function is written synchronously but none of whose reads waits ({@code
 * KvClient.transactReplayed}): the function runs on the poster against what is known; a read of a key not known ends
 * the run ({@link ReadsNeeded}), the keys are read carried by completions, and the function runs again from the start
 * in a new transaction with every read so far. A run that returns commits carried by completions
 * ({@link Transaction#commitAsync(Executor)}); a conflict starts over with nothing known. Each read a run used is
 * checked by its commit as any transaction's, so reads made rounds apart commit only if none changed since.
 *
 * @param <T> what the function returns.
 */
public final class ReplayedTransaction<T>
{
    private static final long FIRST_BACKOFF_NANOS = 2_000;

    private final TxnServices services;
    private final Function<Transaction, T> body;
    private final Executor poster;
    private final int retries;
    private final long maxBackoffNanos;

    /**
     * @param poster  runs the function and posts every request: never one of the client's threads, nor one that
     *                delivers its completions.
     * @param retries conflicts after which the conflict is the answer.
     */
    public ReplayedTransaction(final TxnServices services, final Function<Transaction, T> body, final Executor poster,
        final int retries, final long maxBackoffNanos)
    {
        this.services = services;
        this.body = body;
        this.poster = poster;
        this.retries = retries;
        this.maxBackoffNanos = maxBackoffNanos;
    }

    /** @return completes with what the run that committed returned. */
    public CompletableFuture<T> run()
    {
        return attempt(new HashMap<>(), 0, FIRST_BACKOFF_NANOS);
    }

    private CompletableFuture<T> attempt(final Map<ByteBuffer, Versioned> known, final int run,
        final long backoffNanos)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            final Transaction tx = Transaction.replaying(services, known);
            final T value;
            try
            {
                value = body.apply(tx);
            }
            catch (final ReadsNeeded needed)
            {
                tx.abort();
                return read(needed.keys(), known).thenCompose(ignored -> attempt(known, run, backoffNanos));
            }
            catch (final RuntimeException ex)
            {
                tx.abort();
                throw ex;
            }
            // (a key written without a read, a new collection's segment, is read now: the commit is then carried whole)
            return tx.peekWritesAsync().thenCompose(ignored -> tx.commitAsync(poster)).thenApply(ignored -> value);
        }, poster).thenCompose(started -> started).exceptionallyComposeAsync(ex -> ConflictRetry.afterFailure(ex, run,
            retries, backoffNanos, maxBackoffNanos, poster, (next, backoff) -> attempt(new HashMap<>(), next, backoff)),
            poster);
    }

    /** @return completes once each of {@code keys} was read, any intent resolved, and put in {@code known}. */
    private CompletableFuture<Void> read(final List<byte[]> keys, final Map<ByteBuffer, Versioned> known)
    {
        final List<CompletableFuture<Versioned>> reads = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            reads.add(services.keys().readAsync(key));
        }
        return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0])).thenRun(() ->
        {
            for (int i = 0; i < keys.size(); i++)
            {
                known.put(ByteBuffer.wrap(keys.get(i)), reads.get(i).join());
            }
        });
    }
}

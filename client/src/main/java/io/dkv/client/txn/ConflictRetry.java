package io.dkv.client.txn;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * What an asynchronous transaction does when its run failed: a conflict is run again, after a random pause up to a
 * backoff that doubles each run to a bound, until the retries are spent; anything else, and the conflict past them,
 * is the answer. No thread waits out the pause: the next run starts from a delayed executor.
 */
public final class ConflictRetry
{
    private ConflictRetry()
    {
    }

    /** The next run of a transaction, given its number and its backoff. */
    @FunctionalInterface
    public interface NextRun<T>
    {
        CompletableFuture<T> start(int run, long backoffNanos);
    }

    /**
     * @param failure         how the run ended, as its future failed (wrapped or not).
     * @param run             the run that failed, from 0.
     * @param retries         conflicts after which the conflict is the answer.
     * @param backoffNanos    this run's backoff: the pause is drawn below it.
     * @param maxBackoffNanos the bound the backoff doubles to.
     * @param executor        where the next run starts, after the pause.
     * @param next            starts the next run.
     * @return the next run's outcome, or the failure's cause.
     */
    public static <T> CompletableFuture<T> afterFailure(final Throwable failure, final int run, final int retries,
        final long backoffNanos, final long maxBackoffNanos, final Executor executor, final NextRun<T> next)
    {
        if (!runsAgain(failure, run, retries))
        {
            return CompletableFuture.failedFuture(cause(failure));
        }
        final long pause = ThreadLocalRandom.current().nextLong(backoffNanos);
        return CompletableFuture.supplyAsync(() -> null,
                CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, executor))
            .thenCompose(ignored -> next.start(run + 1, Math.min(maxBackoffNanos, 2 * backoffNanos)));
    }

    /** @return true when {@link #afterFailure} runs the transaction again: a conflict, with retries left. */
    public static boolean runsAgain(final Throwable failure, final int run, final int retries)
    {
        return cause(failure) instanceof TransactionConflictException && run < retries;
    }

    /** @return the cause of a completion's failure, unwrapped from its {@link CompletionException}. */
    public static Throwable cause(final Throwable failure)
    {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}

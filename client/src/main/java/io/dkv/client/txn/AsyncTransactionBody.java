package io.dkv.client.txn;

import java.util.concurrent.CompletableFuture;

/**
 * A transaction's function without a thread waiting: it reads through {@link Transaction#getAsync}, writes through
 * {@link Transaction#put}, and returns a future of its result. It may run more than once (again after each conflict).
 *
 * @param <T> its result.
 */
@FunctionalInterface
public interface AsyncTransactionBody<T>
{
    CompletableFuture<T> run(Transaction tx);
}

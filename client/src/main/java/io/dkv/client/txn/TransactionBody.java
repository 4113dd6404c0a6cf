package io.dkv.client.txn;

/**
 * A transaction's function: reads and writes through the {@link Transaction} it is given, and returns a result. It
 * may run more than once (again after each conflict), so it should do nothing but that: no effects outside the
 * transaction that a second run would repeat.
 *
 * @param <T> its result.
 */
@FunctionalInterface
public interface TransactionBody<T>
{
    T run(Transaction tx);
}

package io.dkv.client.txn;

import io.dkv.client.KvException;

/**
 * A transaction did not commit, and took no effect, because another transaction or write changed a key it read or
 * wrote (or aborted it while it stalled). Running its function again may succeed; {@code KvClient.transact} does so.
 */
public final class TransactionConflictException extends KvException
{
    public TransactionConflictException(final String message)
    {
        super(message);
    }
}

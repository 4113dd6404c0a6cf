package io.dkv.client.txn;

import io.dkv.format.ValueKind;

/**
 * What a key holds as its readers see it: a value and its expiry, whether it is stored as a plain block or is the
 * new or prior value of a transaction's intent.
 *
 * @param value          the value; the array is the caller's.
 * @param expiryWord the block's expiry word: epoch milliseconds from which it is gone (or {@code KvClient.NO_EXPIRY})
 *                   and the value's kind ({@link ValueKind}).
 */
public record LogicalValue(byte[] value, long expiryWord)
{
    /** @return epoch milliseconds from which the value is gone, or {@code KvClient.NO_EXPIRY}. */
    public long expireAtMillis()
    {
        return ValueKind.expiryOf(expiryWord);
    }

    /** @return the value's kind ({@link ValueKind}). */
    public int kind()
    {
        return ValueKind.kindOf(expiryWord);
    }
}

package io.dkv.client.txn;

/**
 * What a key holds as its readers see it: a value and its expiry, whether it is stored as a plain block or is the
 * new or prior value of a transaction's intent.
 *
 * @param value          the value; the array is the caller's.
 * @param expireAtMillis epoch milliseconds from which it is gone, or {@code KvClient.NO_EXPIRY}.
 */
public record LogicalValue(byte[] value, long expireAtMillis)
{
}

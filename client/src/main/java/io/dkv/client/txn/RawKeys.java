package io.dkv.client.txn;

import io.dkv.client.Versioned;

/**
 * The single-key operations the transaction protocol is made of, on the calling thread's session, with no intent
 * resolved on the way: a key holding an intent reads as its block (the intent's record as the value, expireAt
 * {@code KvBlockLayout.INTENT}) and is written only by naming that block's version. Each is a single-key operation of
 * the store (replicated, moved and persisted by its rules), hence linearizable per key.
 */
public interface RawKeys
{
    /** @return the key's block as it is, with its version; null when it has none (or an expired one). */
    Versioned read(byte[] key);

    /**
     * Swap the key from the block {@code from} names to a new one.
     *
     * @param expireAt the new block's expiry, {@code KvBlockLayout.TOMBSTONE} with an empty value to delete the key,
     *                 or {@code KvBlockLayout.INTENT} for an intent's record.
     * @return false when the key holds another block now.
     */
    boolean swap(byte[] key, Versioned from, byte[] value, long expireAt);

    /**
     * As {@link #swap}, compared by the write id {@code from} names and never by value: a version too old for its
     * slot's word to be compared is compared by the write id of the block the key's slot names.
     */
    boolean swapExact(byte[] key, Versioned from, byte[] value, long expireAt);

    /** @return false when the key holds any block (a value or an intent) now. */
    boolean insert(byte[] key, byte[] value, long expireAt);

    /** @return the version the calling thread's last successful {@link #swap} or {@link #insert} put in place. */
    Versioned lastWritten();

    /** @return the client's epoch clock, by which expiry is judged. */
    long epochMillis();

    /** @return the client's nano clock. */
    long nanoTime();
}

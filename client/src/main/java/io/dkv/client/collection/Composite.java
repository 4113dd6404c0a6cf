package io.dkv.client.collection;

/**
 * A value made of many blocks, as one transaction sees it: a hash or a set ({@link Collection}), a sorted set or a
 * list ({@code io.dkv.client.ordered.TreeCollection}). What the keyspace's commands do to any of them (DEL, EXPIRE,
 * PERSIST, COPY, SET over one) goes through this.
 */
public interface Composite
{
    /** @return true when the key holds it (with at least one element). */
    boolean exists();

    /** @return its elements. */
    long size();

    /** @return epoch milliseconds from which all of it is gone, or {@code KvBlockLayout.NEVER}. */
    long expireAtMillis();

    /** Give all of it another expiry (its header and every block), handed to the transaction by {@link #write}. */
    void expireAt(long expireAtMillis);

    /** Remove all of it, header and blocks, when the transaction commits. */
    void drop();

    /** Write a copy of all of it at {@code target} (a new generation), whatever {@code target} held gone already. */
    void copyTo(byte[] target);

    /** Hand the changes to the transaction (a value left with no element is removed). Call after the last change. */
    void write();
}

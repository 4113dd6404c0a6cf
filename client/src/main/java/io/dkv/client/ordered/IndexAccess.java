package io.dkv.client.ordered;

import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;

/**
 * What {@link KeyIndex} reads and writes through: a transaction's reads checked at commit, its peeks not, and its
 * writes; a transaction in use, a model of one in the model check.
 */
interface IndexAccess
{
    /** @return the key's value, read so that the commit checks it (null: none). */
    LogicalValue read(byte[] key);

    /** @return the key's value, read without the commit checking it (null: none). */
    LogicalValue peek(byte[] key);

    /** Write the key's value (kind and expiry in {@code word}) when the transaction commits. */
    void write(byte[] key, byte[] value, long word);

    /** Remove the key when the transaction commits. */
    void remove(byte[] key);

    /** @return {@code tx}'s reads, peeks and writes. */
    static IndexAccess of(final Transaction tx)
    {
        return new IndexAccess()
        {
            public LogicalValue read(final byte[] key)
            {
                return tx.read(key);
            }

            public LogicalValue peek(final byte[] key)
            {
                return tx.peek(key);
            }

            public void write(final byte[] key, final byte[] value, final long word)
            {
                tx.write(key, value, word);
            }

            public void remove(final byte[] key)
            {
                tx.remove(key);
            }
        };
    }
}

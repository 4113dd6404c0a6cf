package io.dkv.client.txn;

import io.dkv.client.Versioned;

/** One key of a transaction: what it read there (its version) and what it writes. */
final class TxnEntry
{
    final byte[] key;
    /** Whether the transaction read the key (its reads are checked again at commit when it does not write it). */
    boolean read;
    /** The plain version read, or null: the key had no value. */
    Versioned version;
    boolean written;
    /** The value written, or null: the transaction deletes the key. */
    byte[] newValue;
    long newExpireAt;
    /**
     * A write that lets memory be freed (a journal of segments to remove): a transaction of deletes and such writes
     * may take a full node's reserve for deletes.
     */
    boolean freeing;
    /** The version its intent was put in place with, once it was. */
    Versioned placed;
    /**
     * What {@code Transaction.peek} read, unchecked (null: no value), once {@link #peekedKnown}: a blind write of the
     * key is swapped in from it, so the commit need not read the key again.
     */
    Versioned peeked;
    boolean peekedKnown;

    TxnEntry(final byte[] key)
    {
        this.key = key;
    }

    /** @return the value replaced by this transaction's write: the version read, or null. */
    byte[] prior()
    {
        return version == null ? null : version.value();
    }

    long priorExpireAt()
    {
        return version == null ? 0 : version.expiryWord();
    }
}

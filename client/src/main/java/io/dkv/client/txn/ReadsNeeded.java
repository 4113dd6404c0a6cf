package io.dkv.client.txn;

import java.util.List;

/**
 * Thrown by a read of a transaction whose reads are answered from what is known ({@link Transaction#replaying}) where
 * a key it names is not known yet: its runner reads them, carried by completions, and runs the transaction's function
 * again from the start. Not an error: never seen by the function's caller. No stack trace is kept.
 */
public final class ReadsNeeded extends RuntimeException
{
    private static final long serialVersionUID = 1L;
    private final transient List<byte[]> keys;

    ReadsNeeded(final List<byte[]> keys)
    {
        super("reads needed: " + keys.size() + " keys", null, false, false);
        // copies: a caller may build its keys in a buffer it reuses (a collection's segment keys)
        this.keys = keys.stream().map(byte[]::clone).toList();
    }

    /** @return the keys to read before the function runs again. */
    public List<byte[]> keys()
    {
        return keys;
    }
}

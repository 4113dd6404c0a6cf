package io.dkv.client;

/**
 * A write met a transaction's intent on its key before it changed anything (client/README.md, "Transactions"): the
 * session resolves the intent and the write starts over. Never seen outside the client; thrown only before the write
 * published anything, so nothing is undone.
 */
public final class IntentFound extends RuntimeException
{
    private final transient byte[] key;

    public IntentFound(final byte[] key)
    {
        super("a transaction's intent is on key " + KvErrors.describe(key), null, false, false);
        this.key = key;
    }

    /** @return the key holding the intent. */
    public byte[] key()
    {
        return key;
    }
}

package io.dkv.client.pieces;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;

/**
 * A read of a string in pieces found a piece gone: the string was replaced or changed (and its old pieces removed)
 * while it was read. What was read before is of the old string; read it again.
 */
public final class PiecesGoneException extends KvException
{
    public PiecesGoneException(final byte[] key, final int piece, final long generation)
    {
        super("the string at key " + KvErrors.describe(key) + " changed while it was read: its piece " + piece +
            " (generation " + Long.toHexString(generation) + ") is gone; read it again");
    }
}

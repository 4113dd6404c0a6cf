package io.dkv.client;

import io.dkv.format.ValueKind;

/**
 * A read of a string met a key that holds another kind of value (a hash or a set: redis's WRONGTYPE), or a
 * collection's operation met a key of another kind. Nothing was changed.
 */
public final class WrongKindException extends KvException
{
    private final int kind;

    public WrongKindException(final byte[] key, final int kind, final int wanted)
    {
        super(kind == ValueKind.PIECES ? "key " + KvErrors.describe(key) + " holds a string longer than a value " +
            "takes, in pieces: read it with io.dkv.client.pieces.PiecedStrings" : "key " + KvErrors.describe(key) +
            " holds a " + ValueKind.name(kind) + ", not a " + ValueKind.name(wanted));
        this.kind = kind;
    }

    /** @return the kind the key holds ({@link ValueKind}). */
    public int kind()
    {
        return kind;
    }

    /**
     * @return true when {@code failure} is a WrongKindException or wraps one (a future's CompletionException): the key
     * held another kind, and nothing was changed.
     */
    public static boolean in(final Throwable failure)
    {
        return failure instanceof WrongKindException || failure.getCause() instanceof WrongKindException;
    }

    /** Throw unless {@code word}'s kind is {@code wanted}. */
    public static void require(final byte[] key, final long word, final int wanted)
    {
        final int kind = ValueKind.kindOf(word);
        if (kind != wanted)
        {
            throw new WrongKindException(key, kind, wanted);
        }
    }
}

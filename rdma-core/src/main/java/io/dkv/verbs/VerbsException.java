package io.dkv.verbs;

/**
 * A verb that could not be carried out: what {@code ibv_*} calls report through errno.
 * Failures of a posted work request are reported by its work completion instead.
 */
public class VerbsException extends RuntimeException
{
    public VerbsException(final String message)
    {
        super(message);
    }

    public VerbsException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

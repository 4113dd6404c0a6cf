package io.dkv.client;

/**
 * An operation could not be done; the message names the key's memory node and why.
 */
public class KvException extends RuntimeException
{
    public KvException(final String message)
    {
        super(message);
    }

    public KvException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

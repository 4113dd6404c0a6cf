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

    /** @param stackTrace false for a failure that is an answer (its message says all), not a fault to trace. */
    protected KvException(final String message, final boolean stackTrace)
    {
        super(message, null, true, stackTrace);
    }
}

package io.dkv.raas;

/**
 * A RaaS call that could not be carried out; the message names the values that caused it.
 */
public class RaasException extends RuntimeException
{
    public RaasException(final String message)
    {
        super(message);
    }

    public RaasException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

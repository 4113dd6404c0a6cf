package io.dkv.raas.meta;

import io.dkv.raas.RaasException;

/**
 * A MetaServer RPC that was answered with an error status, or a frame that cannot be read; the
 * status is one of {@link MetaRpcDescriptor}'s.
 */
public final class MetaRpcException extends RaasException
{
    private final int status;
    private final boolean foreignSecret;

    public MetaRpcException(final int status, final String message)
    {
        this(status, message, false);
    }

    /**
     * @param foreignSecret true when the reply itself was sealed with another secret than this party's.
     */
    public MetaRpcException(final int status, final String message, final boolean foreignSecret)
    {
        super(MetaRpcDescriptor.statusName(status) + ": " + message);
        this.status = status;
        this.foreignSecret = foreignSecret;
    }

    public int status()
    {
        return status;
    }

    /**
     * @return true when the MetaServer answered, but with a reply sealed with another cluster secret than this
     * party's: it runs with another secret (and so refused the request), which no retry changes.
     */
    public boolean foreignSecret()
    {
        return foreignSecret;
    }
}

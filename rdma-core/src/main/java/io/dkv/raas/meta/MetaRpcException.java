package io.dkv.raas.meta;

import io.dkv.raas.RaasException;

/**
 * A MetaServer RPC that was answered with an error status, or a frame that cannot be read; the
 * status is one of {@link MetaRpcDescriptor}'s.
 */
public final class MetaRpcException extends RaasException
{
    private final int status;

    public MetaRpcException(final int status, final String message)
    {
        super(MetaRpcDescriptor.statusName(status) + ": " + message);
        this.status = status;
    }

    public int status()
    {
        return status;
    }
}

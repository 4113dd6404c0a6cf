package io.dkv.raas.stream;

import io.dkv.raas.RaasException;

/** The peer broke the stream protocol (or this end did): the stream cannot go on. */
public final class StreamProtocolException extends RaasException
{
    public StreamProtocolException(final String message)
    {
        super(message);
    }
}

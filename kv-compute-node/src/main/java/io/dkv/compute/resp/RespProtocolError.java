package io.dkv.compute.resp;

/**
 * A request that broke the protocol, as the decoder hands it on: the connection answers this error and closes, as
 * redis-server does.
 *
 * @param message the error reply without its leading '-', e.g. {@code ERR Protocol error: invalid bulk length}.
 */
public record RespProtocolError(String message)
{
}

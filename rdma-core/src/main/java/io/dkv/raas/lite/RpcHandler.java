package io.dkv.raas.lite;

import java.lang.foreign.MemorySegment;

/** Serves the calls of an {@link RpcServer}, on its one poll thread: must not wait long. */
@FunctionalInterface
public interface RpcHandler
{
    /**
     * @param caller        the node that called.
     * @param request       the request's bytes (valid until this returns).
     * @param requestLength how many bytes of {@code request} the caller sent.
     * @param reply         where the reply goes: at most its size.
     * @return the reply's length.
     * @throws RuntimeException to fail the call: the caller's {@link RpcClient#call} throws with its message.
     */
    int handle(long caller, MemorySegment request, int requestLength, MemorySegment reply);
}

package io.dkv.verbs.ibv;

import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SharedReceiveQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A shared receive queue of an RNIC ({@code ibv_create_srq}): receive requests posted through the context's
 * {@code post_srq_recv}, as the static inline {@code ibv_post_srq_recv} does.
 */
final class IbvSharedReceiveQueue implements SharedReceiveQueue
{
    private final IbvProtectionDomain pd;
    private final IbvFunctions functions;
    private final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final RecvPoster recvs;
    private boolean closed;

    IbvSharedReceiveQueue(
        final IbvProtectionDomain pd, final IbvFunctions functions, final MemorySegment srq, final int maxWr,
        final int maxSge)
    {
        this.pd = pd;
        this.functions = functions;
        this.srq = srq;
        recvs = new RecvPoster(pd.ibvDevice().postSrqRecv, srq, maxWr, maxSge, arena, "SRQ");
    }

    public void postRecv(final RecvWorkRequest wr)
    {
        recvs.post(wr);
    }

    MemorySegment srq()
    {
        return srq;
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        pd.disown(this);
        try
        {
            IbvFunctions.destroy(functions.destroySrq, srq, "ibv_destroy_srq");
        }
        finally
        {
            arena.close();
        }
    }
}

package io.dkv.verbs.ibv;

import io.dkv.verbs.RecvWorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Posts chains of receive requests through the provider's {@code post_recv} (a queue pair) or {@code post_srq_recv}
 * (a shared receive queue): the two have the same signature. Allocates nothing.
 */
final class RecvPoster
{
    private final MemorySegment postRecv;
    private final MemorySegment queue;
    private final int maxSge;
    private final WorkRequestEncoder recvs;
    private final String what;

    /**
     * @param postRecv the context's {@code ops.post_recv} or {@code ops.post_srq_recv}.
     * @param queue    the {@code struct ibv_qp *} or {@code struct ibv_srq *} posted to.
     * @param maxWr    most requests written per call.
     * @param maxSge   most scatter/gather entries per request.
     * @param arena    where the written requests live.
     * @param what     the queue, for errors.
     */
    RecvPoster(
        final MemorySegment postRecv,
        final MemorySegment queue,
        final int maxWr,
        final int maxSge,
        final Arena arena,
        final String what)
    {
        this.postRecv = postRecv;
        this.queue = queue;
        this.maxSge = maxSge;
        this.what = what;
        recvs = new WorkRequestEncoder(false, Math.max(1, Math.min(maxWr, 64)), maxSge, arena);
    }

    void post(final RecvWorkRequest first)
    {
        RecvWorkRequest next = first;
        while (next != null)
        {
            final int count = recvs.encodeRecv(next, maxSge);
            final int result;
            try
            {
                result = (int)IbvFunctions.POST.invokeExact(postRecv, queue, recvs.requests(), recvs.bad());
            }
            catch (final Throwable ex)
            {
                throw IbvFunctions.unexpected("post_recv", ex);
            }
            if (result != 0)
            {
                final int index = Math.max(0, recvs.badIndex());
                throw IbvFunctions.failure("post_recv on " + what + " at request " + index + " (wrId " +
                    WorkRequestEncoder.after(next, index).wrId() + ")", result);
            }
            next = WorkRequestEncoder.after(next, count);
        }
    }
}

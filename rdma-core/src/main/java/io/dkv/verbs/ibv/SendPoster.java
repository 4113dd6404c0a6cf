package io.dkv.verbs.ibv;

import io.dkv.verbs.SendWorkRequest;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Posts chains of send requests to an RC or UD queue pair through the provider's {@code post_send}, as the static
 * inline {@code ibv_post_send} of verbs.h does: written out by a {@link WorkRequestEncoder}, in batches of its
 * capacity. Allocates nothing.
 */
final class SendPoster
{
    private final MemorySegment postSend;
    private final MemorySegment qp;
    private final int maxSge;
    private final WorkRequestEncoder sends;
    private final String what;

    /**
     * @param postSend the context's {@code ops.post_send}.
     * @param qp       the {@code struct ibv_qp *} posted to.
     * @param maxWr    most requests written per call.
     * @param maxSge   most scatter/gather entries per request.
     * @param arena    where the written requests live.
     * @param what     the queue pair, for errors.
     */
    SendPoster(
        final MemorySegment postSend,
        final MemorySegment qp,
        final int maxWr,
        final int maxSge,
        final Arena arena,
        final String what)
    {
        this.postSend = postSend;
        this.qp = qp;
        this.maxSge = maxSge;
        this.what = what;
        sends = new WorkRequestEncoder(true, Math.max(1, Math.min(maxWr, 64)), maxSge, arena);
    }

    /**
     * @param first the first request; the rest follow {@link SendWorkRequest#next()}.
     * @throws io.dkv.verbs.VerbsException naming the request post_send stopped at and errno's text; those before it
     *                                     were posted.
     */
    void post(final SendWorkRequest first)
    {
        SendWorkRequest next = first;
        while (next != null)
        {
            final int count = sends.encodeSend(next, maxSge);
            final int result;
            try
            {
                result = (int)IbvFunctions.POST.invokeExact(postSend, qp, sends.requests(), sends.bad());
            }
            catch (final Throwable ex)
            {
                throw IbvFunctions.unexpected("post_send", ex);
            }
            if (result != 0)
            {
                final int index = Math.max(0, sends.badIndex());
                throw IbvFunctions.failure("post_send on " + what + " at request " +
                    WorkRequestEncoder.after(next, index), result);
            }
            next = WorkRequestEncoder.after(next, count);
        }
    }
}

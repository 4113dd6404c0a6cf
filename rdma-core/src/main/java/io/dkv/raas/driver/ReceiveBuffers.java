package io.dkv.raas.driver;

import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SharedReceiveQueue;

import java.lang.foreign.MemorySegment;

/**
 * The receive buffers of the driver's shared receive queue: one SRQ for every connection and queue
 * pair of the driver, so a driver with thousands of connections posts buffers for the messages in
 * flight, not for each connection. A buffer goes back to the queue once its message was consumed.
 */
final class ReceiveBuffers
{
    private final RequestPipeline pipeline;
    private final SharedReceiveQueue srq;
    private final MemoryRegion receive;
    private final int bufferBytes;
    private final RecvWorkRequest repostWr = new RecvWorkRequest(1);

    ReceiveBuffers(
        final RequestPipeline pipeline,
        final ProtectionDomain pd,
        final SharedReceiveQueue srq,
        final int buffers,
        final int bufferBytes)
    {
        this.pipeline = pipeline;
        this.srq = srq;
        this.bufferBytes = bufferBytes;
        this.receive = pd.allocate((long)buffers * bufferBytes, Access.LOCAL_WRITE);
        for (int i = 0; i < buffers; i++)
        {
            repost(i);
        }
    }

    /** @return bytes of each buffer: the most a SEND may carry, header included. */
    int bufferBytes()
    {
        return bufferBytes;
    }

    /** @return where a buffer starts in {@link #memory()}. */
    long offset(final int buffer)
    {
        return (long)buffer * bufferBytes;
    }

    /** @return the memory of every buffer. */
    MemorySegment memory()
    {
        return receive.segment();
    }

    /** Give a receive buffer back to the shared receive queue. */
    void repost(final int buffer)
    {
        synchronized (repostWr)
        {
            repostWr.wrId(buffer).local(receive, (long)buffer * bufferBytes, bufferBytes);
            try
            {
                srq.postRecv(repostWr);
            }
            catch (final RuntimeException ex)
            {
                if (!pipeline.isClosed())
                {
                    throw ex;
                }
            }
        }
    }
}

package io.dkv.raas.driver;

import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpState;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.WorkCompletion;
import org.agrona.collections.IntArrayList;

import java.lang.foreign.MemorySegment;

/**
 * The receive buffers of the driver: those of its shared receive queue, one SRQ for every connection and queue pair
 * of the driver but its datagram one, so a driver with thousands of connections posts buffers for the messages in
 * flight, not for each connection; and a few of the datagram queue pair's own. A buffer goes back to its queue once
 * its message was consumed.
 * <p>A datagram lands behind its 40-byte global route header. Each buffer has that much room before it, which a
 * datagram buffer's receive request covers, so that every message starts at {@link #offset} whatever brought it:
 *
 * <pre>
 *   [GRH room 40 B][buffer 0: bufferBytes][GRH room][buffer 1] ... [GRH room][datagram buffer 0] ...
 *                  ^ offset(0)                      ^ offset(1)
 *   SRQ buffer: SGE = [offset, bufferBytes]     datagram buffer: SGE = [offset - 40, 40 + bufferBytes]
 * </pre>
 */
final class ReceiveBuffers
{
    /** Buffers of the datagram queue pair, beyond the SRQ's: datagrams are for the few messages sent FORCE_UD. */
    static final int DATAGRAM_BUFFERS = 32;

    private final RequestPipeline pipeline;
    private final SharedReceiveQueue srq;
    private final QueuePair datagrams;
    private final MemoryRegion receive;
    private final int sharedBuffers;
    private final int bufferBytes;
    private final long stride;
    private final RecvWorkRequest repostWr = new RecvWorkRequest(1);
    /** Datagram buffers flushed while the datagram queue pair was broken: posted again once it is back. */
    private final IntArrayList parked = new IntArrayList();
    private final ReceiveCredits credits;

    /**
     * @param buffers     buffers of the SRQ.
     * @param datagrams   the datagram queue pair, which has its own receive queue of {@link #DATAGRAM_BUFFERS}.
     * @param bufferBytes bytes of each buffer: the most a message may carry, header included.
     * @param credits     the most message credits one connection is granted.
     */
    ReceiveBuffers(
        final RequestPipeline pipeline,
        final ProtectionDomain pd,
        final SharedReceiveQueue srq,
        final QueuePair datagrams,
        final int buffers,
        final int bufferBytes,
        final int credits)
    {
        this.credits = new ReceiveCredits(buffers, credits);
        this.pipeline = pipeline;
        this.srq = srq;
        this.datagrams = datagrams;
        this.sharedBuffers = buffers;
        this.bufferBytes = bufferBytes;
        this.stride = WorkCompletion.GRH_LENGTH + bufferBytes;
        this.receive = pd.allocate((buffers + DATAGRAM_BUFFERS) * stride, Access.LOCAL_WRITE);
        for (int i = 0; i < buffers + DATAGRAM_BUFFERS; i++)
        {
            repost(i);
        }
    }

    /** @return how many datagram buffers the datagram queue pair's receive queue must hold. */
    static int datagramBuffers()
    {
        return DATAGRAM_BUFFERS;
    }

    /** @return whether the buffer belongs to the datagram queue pair (else to the SRQ). */
    boolean isDatagram(final int buffer)
    {
        return buffer >= sharedBuffers;
    }

    /**
     * A datagram buffer came back flushed: its queue pair broke, and a receive posted to it now would only be flushed
     * again. It is posted once the queue pair is back up ({@link #repostParked}), or now if it already is.
     */
    void onFlushed(final int buffer)
    {
        synchronized (repostWr)
        {
            if (datagrams.state() == QpState.RTS)
            {
                repost(buffer);
            }
            else
            {
                parked.addInt(buffer);
            }
        }
    }

    /** The datagram queue pair is back up: post the buffers flushed while it was broken. */
    void repostParked()
    {
        synchronized (repostWr)
        {
            for (int i = 0; i < parked.size(); i++)
            {
                repost(parked.getInt(i));
            }
            parked.clear();
        }
    }

    /** @return the message credits granted over the connections, bounded by the shared buffers. */
    ReceiveCredits credits()
    {
        return credits;
    }

    /** @return bytes of each buffer: the most a SEND may carry, header included. */
    int bufferBytes()
    {
        return bufferBytes;
    }

    /** @return where a buffer's message starts in {@link #memory()}, whichever queue it came by. */
    long offset(final int buffer)
    {
        return buffer * stride + WorkCompletion.GRH_LENGTH;
    }

    /** @return the memory of every buffer. */
    MemorySegment memory()
    {
        return receive.segment();
    }

    /** Give a receive buffer back to its queue: the SRQ, or the datagram queue pair's. */
    void repost(final int buffer)
    {
        synchronized (repostWr)
        {
            try
            {
                if (buffer < sharedBuffers)
                {
                    srq.postRecv(repostWr.wrId(buffer).local(receive, offset(buffer), bufferBytes));
                }
                else
                {
                    datagrams.postRecv(repostWr.wrId(buffer).local(receive, offset(buffer) -
                        WorkCompletion.GRH_LENGTH, WorkCompletion.GRH_LENGTH + bufferBytes));
                }
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

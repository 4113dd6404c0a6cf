package io.dkv.verbs.tcp;

import io.dkv.verbs.PortAddress;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.soft.SendSlot;
import io.dkv.verbs.soft.SoftEndpoint;
import org.agrona.concurrent.NanoClock;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * The requester's end of a link. Posting threads write requests into the transmit buffer and
 * flush it themselves (the doorbell), under the link's monitor; the engine finishes what the
 * socket would not take. Responses are read by whichever thread polls a completion queue of a
 * queue pair waiting on this link, one at a time: a poller that finds the response in the socket
 * completes the request without waking another thread, as a NIC's completion needs no CPU.
 */
final class OutboundLink extends TcpLink
{
    static final int SENT = 0;
    static final int BLOCKED = 1;
    static final int FAILED = 2;
    /** How long a link may go unread before a request on it reads it first (one system call per period at most). */
    static final long IDLE_LOOK_NANOS = 1_000_000L;

    private static final int EXPECT_HEADER = 0;
    private static final int EXPECT_PAYLOAD = 1;

    private final TcpDevice device;
    private final long maxFrameLength;
    private final ScatterList readSink = new ScatterList();
    private TcpQueuePair[] waiting = new TcpQueuePair[8];
    private int waitingCount;
    private TcpQueuePair[] resumeScratch = new TcpQueuePair[8];
    private int state = EXPECT_HEADER;
    private long payloadRemaining;
    private TcpQueuePair readQp;
    private int readPsn;
    private boolean sinkFailed;
    volatile String pendingCloseReason;
    private final AtomicBoolean reading = new AtomicBoolean();
    private volatile boolean broken;
    private final NanoClock nanoClock;
    private long lastLookNanos;

    OutboundLink(final TcpNicEngine engine, final TcpDevice device, final SocketChannel channel, final PortAddress peer)
    {
        super(engine, channel, "link to " + peer, device.context().tcpLinkBuffer(), false);
        allocateBuffers();
        this.device = device;
        this.nanoClock = device.context().nanoClock();
        this.lastLookNanos = nanoClock.nanoTime();
        this.peerAddress = peer;
        this.maxFrameLength = RESPONSE_HEADER_LENGTH + device.attributes().maxMessageSize();
        writeHello(device.address());
    }

    private void writeHello(final PortAddress local)
    {
        final byte[] address = local.bytes();
        txBuffer.putInt(FRAME_LENGTH_OFFSET, HELLO_LENGTH);
        txBuffer.putByte(TYPE_OFFSET, TYPE_HELLO);
        txBuffer.putLong(HELLO_MAGIC_OFFSET, HELLO_MAGIC);
        txBuffer.putInt(HELLO_VERSION_OFFSET, PROTOCOL_VERSION);
        txBuffer.putInt(HELLO_ADDRESS_LENGTH_OFFSET, address.length);
        txBuffer.putBytes(HELLO_ADDRESS_OFFSET, address);
        txTail = HELLO_LENGTH;
    }

    /**
     * Stage a request frame. Its payload is copied as space allows; the rest streams later.
     *
     * @return {@link #SENT}, {@link #BLOCKED} (the QP is resumed once space frees) or {@link #FAILED}.
     */
    synchronized int transmitRequest(
        final TcpQueuePair qp, final SendSlot slot, final byte transport, final int dst, final long key)
    {
        if (closed)
        {
            return FAILED;
        }
        final int payload = slot.opcode.carriesPayload() ? slot.length : 0;
        final int needed = REQUEST_HEADER_LENGTH + (transport == TRANSPORT_UD ? payload : 0);
        if (hasPendingPayload || txSpace() < needed)
        {
            addWaiting(qp);
            engine.requestFlush(this);
            return BLOCKED;
        }
        final int offset = txTail;
        txBuffer.putInt(offset + FRAME_LENGTH_OFFSET, REQUEST_HEADER_LENGTH + payload);
        txBuffer.putByte(offset + TYPE_OFFSET, TYPE_REQUEST);
        txBuffer.putByte(offset + REQ_OPCODE_OFFSET, (byte)slot.opcode.code());
        txBuffer.putByte(offset + REQ_TRANSPORT_OFFSET, transport);
        txBuffer.putByte(offset + REQ_INCARNATION_OFFSET, qp.incarnation());
        txBuffer.putInt(offset + REQ_SRC_QPN_OFFSET, qp.qpNum());
        txBuffer.putInt(offset + REQ_DST_OFFSET, dst);
        txBuffer.putInt(offset + REQ_PSN_OFFSET, slot.psn);
        txBuffer.putInt(offset + REQ_LENGTH_OFFSET, slot.length);
        txBuffer.putLong(offset + REQ_REMOTE_ADDR_OFFSET, slot.remoteAddr);
        txBuffer.putInt(offset + REQ_RKEY_OFFSET, slot.rkey);
        txBuffer.putInt(offset + REQ_IMM_OFFSET, slot.immData);
        txBuffer.putLong(offset + REQ_COMPARE_ADD_OFFSET, slot.compareAdd);
        txBuffer.putLong(offset + REQ_SWAP_OFFSET, slot.swap);
        txBuffer.putLong(offset + REQ_KEY_OFFSET, key);
        txTail += REQUEST_HEADER_LENGTH;
        if (payload > 0)
        {
            pendingPayload.fromSend(slot, payload);
            hasPendingPayload = true;
            fillPendingPayload();
        }
        return SENT;
    }

    private void addWaiting(final TcpQueuePair qp)
    {
        for (int i = 0; i < waitingCount; i++)
        {
            if (waiting[i] == qp)
            {
                return;
            }
        }
        if (waitingCount == waiting.length)
        {
            waiting = Arrays.copyOf(waiting, waiting.length * 2);
        }
        waiting[waitingCount++] = qp;
    }

    /**
     * Flush from a posting thread; what the socket does not take is left to the engine.
     */
    void flushFromPoster()
    {
        final boolean done;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            try
            {
                done = flushTransmit();
            }
            catch (final IOException ex)
            {
                engine.requestClose(this, ex.getMessage());
                return;
            }
        }
        if (!done)
        {
            engine.requestFlush(this);
        }
    }

    /**
     * The engine's flush: send what is staged, then let blocked queue pairs try again.
     */
    void flushFromEngine()
    {
        int resumeCount = 0;
        String failure = null;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            try
            {
                final boolean done = flushTransmit();
                if (key != null)
                {
                    key.interestOps(done ? 0 : SelectionKey.OP_WRITE);
                }
                if (!hasPendingPayload && waitingCount > 0)
                {
                    if (resumeScratch.length < waitingCount)
                    {
                        resumeScratch = new TcpQueuePair[waiting.length];
                    }
                    System.arraycopy(waiting, 0, resumeScratch, 0, waitingCount);
                    Arrays.fill(waiting, 0, waitingCount, null);
                    resumeCount = waitingCount;
                    waitingCount = 0;
                }
            }
            catch (final IOException ex)
            {
                failure = ex.getMessage();
            }
        }
        if (failure != null)
        {
            // out of this link's monitor: closing tells the device, whose map of links a posting thread may hold
            // while it waits for this monitor (TcpDevice.link flushing a new link), a deadlock the other way round
            close(failure);
            return;
        }
        for (int i = 0; i < resumeCount; i++)
        {
            final TcpQueuePair qp = resumeScratch[i];
            resumeScratch[i] = null;
            qp.progress();
        }
    }

    void onReady(final int readyOps)
    {
        if ((readyOps & SelectionKey.OP_WRITE) != 0)
        {
            flushFromEngine();
        }
    }

    /**
     * Read the responses that arrived and complete their requests. Called by pollers; when another
     * thread is reading already this returns at once.
     */
    void pollResponses()
    {
        if (closed || broken || !reading.compareAndSet(false, true))
        {
            return;
        }
        try
        {
            readAndParse();
        }
        catch (final IOException ex)
        {
            fail(ex.getMessage());
        }
        finally
        {
            reading.set(false);
        }
    }

    /**
     * Whether requests may go out on this link. Only pollers that wait for responses read a link, so
     * a peer that closed an idle link (it stopped, and a new node may listen at its address now) goes
     * unseen until a request is lost on it: a link not looked at for {@link #IDLE_LOOK_NANOS} is read
     * first, which finds the close. What the read brings stays buffered for the pollers: parsing
     * completes requests, which takes queue pairs' monitors, and the caller may hold one.
     */
    boolean isUsable()
    {
        final long now = nanoClock.nanoTime();
        if (now - lastLookNanos > IDLE_LOOK_NANOS && !closed && !broken && reading.compareAndSet(false, true))
        {
            lastLookNanos = now;
            try
            {
                readAvailable();
            }
            catch (final IOException ex)
            {
                fail(ex.getMessage());
            }
            finally
            {
                reading.set(false);
            }
        }
        return !closed && !broken;
    }

    /** Stop reading and have the engine close the link (it owns the link list). */
    private void fail(final String reason)
    {
        broken = true;
        engine.requestClose(this, reason);
    }

    protected void parse()
    {
        while (!closed && !broken)
        {
            if (state == EXPECT_PAYLOAD)
            {
                final int available = rxAvailable();
                if (available == 0)
                {
                    return;
                }
                final int chunk = (int)Math.min(available, payloadRemaining);
                if (!sinkFailed)
                {
                    try
                    {
                        readSink.scatterFrom(rxSegment, rxHead, chunk);
                    }
                    catch (final IllegalStateException ex)
                    {
                        sinkFailed = true;
                    }
                }
                rxHead += chunk;
                payloadRemaining -= chunk;
                if (payloadRemaining > 0)
                {
                    return;
                }
                state = EXPECT_HEADER;
                readSink.clear();
                final TcpQueuePair qp = readQp;
                readQp = null;
                if (qp != null)
                {
                    qp.onResponse(readPsn, sinkFailed ? WcStatus.LOC_PROT_ERR : WcStatus.SUCCESS, 0);
                }
                continue;
            }

            if (rxAvailable() < RESPONSE_HEADER_LENGTH)
            {
                return;
            }
            final int frameLength = rxBuffer.getInt(rxHead + FRAME_LENGTH_OFFSET);
            final byte type = rxBuffer.getByte(rxHead + TYPE_OFFSET);
            final int statusCode = rxBuffer.getByte(rxHead + RESP_STATUS_OFFSET);
            final int qpn = rxBuffer.getInt(rxHead + RESP_QPN_OFFSET);
            final int psn = rxBuffer.getInt(rxHead + RESP_PSN_OFFSET);
            final long original = rxBuffer.getLong(rxHead + RESP_ORIGINAL_OFFSET);
            final long payload = (long)frameLength - RESPONSE_HEADER_LENGTH;
            if ((type != TYPE_RESPONSE && type != TYPE_RNR_NAK) || payload < 0 || frameLength > maxFrameLength ||
                statusCode < 0 || statusCode > WcStatus.GENERAL_ERR.code() ||
                (payload > 0 && (type != TYPE_RESPONSE || statusCode != 0)))
            {
                fail(String.format("malformed response: type %d length %d status %d", type, frameLength, statusCode));
                return;
            }
            rxHead += RESPONSE_HEADER_LENGTH;
            final TcpQueuePair qp = queuePair(qpn);
            if (type == TYPE_RNR_NAK)
            {
                if (qp != null)
                {
                    qp.onReceiverNotReady(psn, statusCode != 0);
                }
                continue;
            }
            if (payload > 0)
            {
                sinkFailed = false;
                readQp = qp != null && qp.prepareRead(psn, payload, readSink) ? qp : null;
                if (readQp == null)
                {
                    readSink.discard(payload);
                }
                readPsn = psn;
                payloadRemaining = payload;
                state = EXPECT_PAYLOAD;
                continue;
            }
            if (qp != null)
            {
                qp.onResponse(psn, WcStatus.fromCode(statusCode), original);
            }
        }
    }

    private TcpQueuePair queuePair(final int qpn)
    {
        final SoftEndpoint endpoint = device.endpoint(qpn);
        return endpoint instanceof TcpQueuePair qp ? qp : null;
    }

    void close(final String reason)
    {
        final TcpQueuePair[] blocked;
        final int blockedCount;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closeChannel();
            pendingPayload.clear();
            hasPendingPayload = false;
            releaseBuffers();
            blocked = Arrays.copyOf(waiting, waitingCount);
            blockedCount = waitingCount;
            Arrays.fill(waiting, null);
            waitingCount = 0;
        }
        readSink.clear();
        readQp = null;
        engine.onClosed(this, reason);
        device.onLinkClosed(this);
        for (int i = 0; i < blockedCount; i++)
        {
            blocked[i].progress();
        }
    }
}

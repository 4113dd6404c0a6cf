package io.dkv.verbs.tcp;

import io.dkv.verbs.Access;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpState;
import io.dkv.verbs.QpType;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import io.dkv.verbs.soft.LocalMemory;
import io.dkv.verbs.soft.ReceiveSlot;
import io.dkv.verbs.soft.RemoteAccess;
import io.dkv.verbs.soft.SoftDcTarget;
import io.dkv.verbs.soft.SoftEndpoint;
import io.dkv.verbs.soft.SoftMemoryRegion;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * The responder's end of a link: parses requests, checks them as an RNIC does, executes them on
 * registered memory and answers, all on the engine thread. A peer that breaks the framing, or
 * keeps addressing queue pairs that are not its own, is cut off.
 */
final class InboundLink extends TcpLink
{

    private static final int EXPECT_HELLO = 0;
    private static final int EXPECT_HEADER = 1;
    private static final int EXPECT_PAYLOAD = 2;

    private static final int ON_END_NOTHING = 0;
    private static final int ON_END_ACK = 1;
    private static final int ON_END_RECEIVE = 2;
    private static final int ON_END_RECEIVE_NO_ACK = 3;

    private final TcpDevice device;
    private final int maxInvalidFrames;
    private final long maxFrameLength;
    private final ScatterList sink = new ScatterList();
    /** wc_flags of the receive the frame ends in: GRH for a datagram. */
    private int endFlags;
    private final ReceiveSlot receiveSlot = new ReceiveSlot(16);
    private final DcSourceStates dcStates;
    private final InetAddress sourceAddress;
    private final long acceptedNanos;
    private ByteBuffer helloBytes = ByteBuffer.allocate(HELLO_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
    private TcpQueuePair requestRcQp;
    private int requestDcSource = -1;
    private int requestDcIncarnation;
    private int state = EXPECT_HELLO;
    private long payloadRemaining;
    private int onEnd;
    private int endQpn;
    private int endPsn;
    private SoftEndpoint endEndpoint;
    private boolean endWriteWithImm;
    private boolean endWithImm;
    private int endLength;
    private int endImm;
    private boolean sinkFailed;
    private int invalidFrames;
    private boolean readPaused;

    /**
     * @param sourceAddress the IP address the connection came from.
     * @param acceptedNanos when it was accepted: it has until then plus the HELLO timeout to say HELLO.
     */
    InboundLink(
        final TcpNicEngine engine,
        final TcpDevice device,
        final SocketChannel channel,
        final String name,
        final InetAddress sourceAddress,
        final long acceptedNanos)
    {
        super(engine, channel, name, device.context().tcpLinkBuffer(), true);
        this.device = device;
        this.sourceAddress = sourceAddress;
        this.acceptedNanos = acceptedNanos;
        this.maxInvalidFrames = device.context().tcpMaxInvalidFrames();
        this.maxFrameLength = REQUEST_HEADER_LENGTH + device.attributes().maxMessageSize();
        this.dcStates = new DcSourceStates(engine, device.context().tcpMaxDcSourcesPerLink());
    }

    InetAddress sourceAddress()
    {
        return sourceAddress;
    }

    long acceptedNanos()
    {
        return acceptedNanos;
    }

    boolean saidHello()
    {
        return state != EXPECT_HELLO;
    }

    void onReady(final int readyOps)
    {
        try
        {
            if (state == EXPECT_HELLO && !readHello())
            {
                return;
            }
            if ((readyOps & SelectionKey.OP_READ) != 0)
            {
                readAndParse();
            }
            // answer everything already received: a request whose bytes are here waits for no more bytes
            while (!closed)
            {
                if (hasUnsent() && !flushTransmit())
                {
                    break;
                }
                final int consumedBefore = rxHead;
                final int stateBefore = state;
                if (rxAvailable() == 0)
                {
                    break;
                }
                parse();
                if (rxHead == consumedBefore && state == stateBefore && !hasUnsent())
                {
                    break;
                }
            }
            if (closed)
            {
                return;
            }
            final boolean unsent = hasUnsent();
            readPaused = rxTail == rx.capacity() && state != EXPECT_PAYLOAD && !canRespond();
            key.interestOps((unsent ? SelectionKey.OP_WRITE : 0) | (readPaused ? 0 : SelectionKey.OP_READ));
        }
        catch (final IOException ex)
        {
            close(ex.getMessage());
        }
    }

    private boolean canRespond()
    {
        return !hasPendingPayload && txSpace() >= RESPONSE_HEADER_LENGTH;
    }

    protected void parse()
    {
        while (!closed)
        {
            if (state == EXPECT_PAYLOAD)
            {
                final int available = rxAvailable();
                if (available == 0)
                {
                    return;
                }
                final int chunk = (int)Math.min(available, payloadRemaining);
                consumePayload(chunk);
                rxHead += chunk;
                payloadRemaining -= chunk;
                if (payloadRemaining > 0)
                {
                    return;
                }
                endFrame();
                state = EXPECT_HEADER;
                continue;
            }

            if (rxAvailable() < 8 || !canRespond())
            {
                return;
            }
            final int frameLength = rxBuffer.getInt(rxHead + FRAME_LENGTH_OFFSET);
            final byte type = rxBuffer.getByte(rxHead + TYPE_OFFSET);
            if (type != TYPE_REQUEST || frameLength < REQUEST_HEADER_LENGTH || frameLength > maxFrameLength)
            {
                close(String.format("malformed frame: type %d length %d", type, frameLength));
                return;
            }
            if (rxAvailable() < REQUEST_HEADER_LENGTH)
            {
                return;
            }
            onRequest(frameLength);
            rxHead += REQUEST_HEADER_LENGTH;
            if (closed)
            {
                return;
            }
            if (payloadRemaining > 0)
            {
                state = EXPECT_PAYLOAD;
            }
            else
            {
                endFrame();
            }
        }
    }

    /**
     * Read the first frame into a buffer of its own size: the link gets its staging buffers only once
     * it has said a valid HELLO.
     *
     * @return true once the HELLO is complete and valid.
     */
    private boolean readHello() throws IOException
    {
        if (channel.read(helloBytes) < 0)
        {
            throw new IOException("peer closed the connection");
        }
        if (helloBytes.position() >= TYPE_OFFSET + 1)
        {
            final int frameLength = helloBytes.getInt(FRAME_LENGTH_OFFSET);
            final byte type = helloBytes.get(TYPE_OFFSET);
            if (type != TYPE_HELLO || frameLength != HELLO_LENGTH)
            {
                close(String.format("malformed frame: expected HELLO, got type %d length %d", type, frameLength));
                return false;
            }
        }
        if (helloBytes.hasRemaining())
        {
            return false;
        }
        final long magic = helloBytes.getLong(HELLO_MAGIC_OFFSET);
        final int version = helloBytes.getInt(HELLO_VERSION_OFFSET);
        final int addressLength = helloBytes.getInt(HELLO_ADDRESS_LENGTH_OFFSET);
        if (magic != HELLO_MAGIC || version != PROTOCOL_VERSION || (addressLength != 6 && addressLength != 18))
        {
            close(String.format("malformed HELLO: magic 0x%x version %d address length %d", magic, version,
                addressLength));
            return false;
        }
        final byte[] address = new byte[addressLength];
        helloBytes.get(HELLO_ADDRESS_OFFSET, address);
        peerAddress = PortAddress.of(PortAddress.TCP, address);
        helloBytes = null;
        allocateBuffers();
        state = EXPECT_HEADER;
        return true;
    }

    private void onRequest(final int frameLength)
    {
        final int base = rxHead;
        final Opcode opcode = Opcode.fromCode(rxBuffer.getByte(base + REQ_OPCODE_OFFSET));
        final byte transport = rxBuffer.getByte(base + REQ_TRANSPORT_OFFSET);
        final int srcQpn = rxBuffer.getInt(base + REQ_SRC_QPN_OFFSET);
        final int dst = rxBuffer.getInt(base + REQ_DST_OFFSET);
        final int psn = rxBuffer.getInt(base + REQ_PSN_OFFSET);
        final int length = rxBuffer.getInt(base + REQ_LENGTH_OFFSET);
        final long remoteAddr = rxBuffer.getLong(base + REQ_REMOTE_ADDR_OFFSET);
        final int rkey = rxBuffer.getInt(base + REQ_RKEY_OFFSET);
        final int immData = rxBuffer.getInt(base + REQ_IMM_OFFSET);
        final long compareAdd = rxBuffer.getLong(base + REQ_COMPARE_ADD_OFFSET);
        final long swap = rxBuffer.getLong(base + REQ_SWAP_OFFSET);
        final long key = rxBuffer.getLong(base + REQ_KEY_OFFSET);
        final int incarnation = rxBuffer.getByte(base + REQ_INCARNATION_OFFSET) & 0xFF;
        requestRcQp = null;
        requestDcSource = -1;

        if (opcode == null || transport < TRANSPORT_RC || transport > TRANSPORT_DC)
        {
            close(String.format("malformed request: opcode %d transport %d", rxBuffer.getByte(base + REQ_OPCODE_OFFSET),
                transport));
            return;
        }
        final int payload = opcode.carriesPayload() ? length : 0;
        if (length < 0 || frameLength != REQUEST_HEADER_LENGTH + payload || !withinLimits(opcode, transport, length))
        {
            close(String.format("malformed request: %s of length %d in a frame of %d bytes", opcode, length,
                frameLength));
            return;
        }
        payloadRemaining = payload;
        sink.discard(payload);
        sinkFailed = false;
        onEnd = ON_END_NOTHING;
        endQpn = srcQpn;
        endPsn = psn;

        if (transport == TRANSPORT_UD)
        {
            onDatagram(opcode, srcQpn, dst, (int)key, length, immData);
            return;
        }

        final SoftEndpoint endpoint = device.endpoint(dst);
        if (transport == TRANSPORT_RC)
        {
            if (!(endpoint instanceof TcpQueuePair qp) || qp.type() != QpType.RC)
            {
                invalid(srcQpn, psn, dst);
                return;
            }
            final QpState state = qp.state();
            if (state == QpState.RESET || state == QpState.INIT)
            {
                // still being set up (its peer is not known yet): the requester retries until its transport timeout
                qp.awaitingPsn = true;
                qp.awaitedPsn = psn;
                respond(TYPE_RNR_NAK, WcStatus.RETRY_EXC_ERR, srcQpn, psn, 0);
                return;
            }
            if (qp.destQpn() != srcQpn || !peerAddress.equals(qp.destAddress()))
            {
                invalid(srcQpn, psn, dst);
                return;
            }
            if (qp.requesterLink == null || qp.requesterLink.isClosed())
            {
                qp.requesterLink = this;
            }
            else if (qp.requesterLink != this)
            {
                // the peer's requests come over its own link: another link claiming to be it is an impostor
                invalid(srcQpn, psn, dst);
                return;
            }
            if (!qp.acceptsRequests())
            {
                respond(TYPE_RESPONSE, WcStatus.RETRY_EXC_ERR, srcQpn, psn, 0);
                return;
            }
            if (qp.requesterIncarnation != incarnation)
            {
                qp.requesterIncarnation = incarnation;
                qp.requesterErrored = false;
                qp.awaitingPsn = false;
            }
            if (qp.requesterErrored)
            {
                // the requester flushed this frame when it saw the error: it must not execute
                return;
            }
            requestRcQp = qp;
            if (qp.awaitingPsn)
            {
                if (psn != qp.awaitedPsn)
                {
                    return;
                }
                qp.awaitingPsn = false;
            }
        }
        else
        {
            if (!(endpoint instanceof SoftDcTarget dct) || !dct.acceptsRequests())
            {
                invalid(srcQpn, psn, dst);
                return;
            }
            if (dct.dcKey() != key)
            {
                invalid(srcQpn, psn, dst);
                if (!closed)
                {
                    // the invalid answer above is RETRY_EXC_ERR; a wrong key is an access violation
                    overwriteLastStatus(WcStatus.REM_ACCESS_ERR);
                }
                return;
            }
            if (!dcStates.admit(srcQpn, incarnation, psn))
            {
                return;
            }
            requestDcSource = srcQpn;
            requestDcIncarnation = incarnation;
        }
        execute(endpoint, transport, opcode, srcQpn, psn, length, remoteAddr, rkey, immData, compareAdd, swap);
    }

    private boolean withinLimits(final Opcode opcode, final byte transport, final int length)
    {
        if (transport == TRANSPORT_UD)
        {
            return opcode.isTwoSided() && length <= device.attributes().mtu();
        }
        if (opcode.isAtomic())
        {
            return length == 8;
        }
        if (opcode.isTwoSided())
        {
            return length <= device.attributes().maxSendSize();
        }
        return length <= device.attributes().maxMessageSize();
    }

    private void invalid(final int srcQpn, final int psn, final int dst)
    {
        respond(TYPE_RESPONSE, WcStatus.RETRY_EXC_ERR, srcQpn, psn, 0);
        if (++invalidFrames > maxInvalidFrames)
        {
            close(String.format("%d requests addressed queue pairs or DC targets it may not use (last 0x%x)",
                invalidFrames, dst));
        }
    }

    private void overwriteLastStatus(final WcStatus status)
    {
        txBuffer.putByte(txTail - RESPONSE_HEADER_LENGTH + RESP_STATUS_OFFSET, (byte)status.code());
    }

    private void execute(
        final SoftEndpoint endpoint,
        final byte transport,
        final Opcode opcode,
        final int srcQpn,
        final int psn,
        final int length,
        final long remoteAddr,
        final int rkey,
        final int immData,
        final long compareAdd,
        final long swap)
    {
        final int pdId = endpoint.pd().id();
        final int access = endpoint.responderAccess();
        switch (opcode)
        {
            case RDMA_READ:
            {
                final SoftMemoryRegion region = device.localRegion(rkey);
                final WcStatus status =
                    RemoteAccess.check(region, rkey, pdId, access, Access.REMOTE_READ, remoteAddr, length);
                if (status != WcStatus.SUCCESS)
                {
                    respond(TYPE_RESPONSE, status, srcQpn, psn, 0);
                    return;
                }
                respondWithPayload(srcQpn, psn, length);
                if (length > 0)
                {
                    pendingPayload.single(region.segment(), remoteAddr - region.address(), length);
                    hasPendingPayload = true;
                    fillPendingPayload();
                }
                return;
            }

            case RDMA_WRITE:
            case RDMA_WRITE_WITH_IMM:
            {
                final SoftMemoryRegion region = device.localRegion(rkey);
                final WcStatus status =
                    RemoteAccess.check(region, rkey, pdId, access, Access.REMOTE_WRITE, remoteAddr, length);
                if (status != WcStatus.SUCCESS)
                {
                    respond(TYPE_RESPONSE, status, srcQpn, psn, 0);
                    return;
                }
                if (opcode == Opcode.RDMA_WRITE_WITH_IMM)
                {
                    if (!endpoint.takeReceive(receiveSlot))
                    {
                        receiverNotReady(endpoint, transport, srcQpn, psn);
                        return;
                    }
                    final WcStatus receiveStatus = LocalMemory.checkReceive(device, endpoint.pd(), receiveSlot, 0);
                    if (receiveStatus != WcStatus.SUCCESS)
                    {
                        endpoint.completeReceive(receiveSlot, receiveStatus, true, true, length, immData, srcQpn);
                        respond(TYPE_RESPONSE, WcStatus.REM_OP_ERR, srcQpn, psn, 0);
                        return;
                    }
                    prepareReceiveEnd(endpoint, true, true, length, immData);
                    onEnd = ON_END_RECEIVE;
                }
                else
                {
                    onEnd = ON_END_ACK;
                }
                sink.single(region.segment(), remoteAddr - region.address(), length);
                return;
            }

            case ATOMIC_CMP_AND_SWP:
            case ATOMIC_FETCH_AND_ADD:
            {
                final SoftMemoryRegion region = device.localRegion(rkey);
                WcStatus status = RemoteAccess.check(region, rkey, pdId, access, Access.REMOTE_ATOMIC, remoteAddr, 8);
                long original = 0;
                if (status == WcStatus.SUCCESS)
                {
                    try
                    {
                        original = RemoteAccess.atomic(
                            opcode, region.segment(), remoteAddr - region.address(), compareAdd, swap);
                    }
                    catch (final IllegalStateException ex)
                    {
                        status = WcStatus.REM_ACCESS_ERR;
                    }
                }
                if (status == WcStatus.SUCCESS && device.context().tcpAnswerLoss().loseAtomicAnswer(srcQpn, psn))
                {
                    // executed, its answer lost on the way back (tests of a link cut between the two)
                    return;
                }
                respond(TYPE_RESPONSE, status, srcQpn, psn, original);
                return;
            }

            default:
            {
                if (!endpoint.takeReceive(receiveSlot))
                {
                    receiverNotReady(endpoint, transport, srcQpn, psn);
                    return;
                }
                final WcStatus receiveStatus = LocalMemory.checkReceive(device, endpoint.pd(), receiveSlot, length);
                if (receiveStatus != WcStatus.SUCCESS)
                {
                    endpoint.completeReceive(receiveSlot, receiveStatus, false, opcode.carriesImmediate(), length,
                        immData, srcQpn);
                    respond(TYPE_RESPONSE,
                        receiveStatus == WcStatus.LOC_LEN_ERR ? WcStatus.REM_INV_REQ_ERR : WcStatus.REM_OP_ERR, srcQpn,
                        psn, 0);
                    return;
                }
                prepareReceiveEnd(endpoint, false, opcode.carriesImmediate(), length, immData);
                onEnd = ON_END_RECEIVE;
                sink.fromReceive(receiveSlot, length);
            }
        }
    }

    private void onDatagram(final Opcode opcode, final int srcQpn, final int dst, final int qkey, final int length,
        final int immData)
    {
        final SoftEndpoint endpoint = device.endpoint(dst);
        if (!(endpoint instanceof TcpQueuePair qp) || qp.type() != QpType.UD || !qp.acceptsRequests() ||
            qp.qkey() != qkey)
        {
            return;
        }
        if (!qp.takeReceive(receiveSlot))
        {
            return;
        }
        // a datagram lands behind its global route header, as on an RNIC
        final int delivered = WorkCompletion.GRH_LENGTH + length;
        final WcStatus status = LocalMemory.checkReceive(device, qp.pd(), receiveSlot, delivered);
        if (status != WcStatus.SUCCESS)
        {
            qp.completeReceive(receiveSlot, status, false, opcode.carriesImmediate(), delivered, immData, srcQpn);
            return;
        }
        prepareReceiveEnd(qp, false, opcode.carriesImmediate(), delivered, immData);
        endFlags = WorkCompletion.GRH;
        onEnd = ON_END_RECEIVE_NO_ACK;
        sink.fromReceive(receiveSlot, delivered);
        sink.scatterFrom(LocalMemory.GRH_BYTES, 0, WorkCompletion.GRH_LENGTH);
    }

    private void receiverNotReady(final SoftEndpoint endpoint, final byte transport, final int srcQpn, final int psn)
    {
        if (transport == TRANSPORT_RC)
        {
            final TcpQueuePair qp = (TcpQueuePair)endpoint;
            qp.awaitingPsn = true;
            qp.awaitedPsn = psn;
        }
        respond(TYPE_RNR_NAK, WcStatus.SUCCESS, srcQpn, psn, 0);
        if (transport != TRANSPORT_RC && !dcStates.awaiting(srcQpn, requestDcIncarnation, psn))
        {
            closeForDcSources();
        }
    }

    private void prepareReceiveEnd(
        final SoftEndpoint endpoint, final boolean writeWithImm, final boolean withImm, final int length,
        final int immData)
    {
        endEndpoint = endpoint;
        endFlags = 0;
        endWriteWithImm = writeWithImm;
        endWithImm = withImm;
        endLength = length;
        endImm = immData;
    }

    private void consumePayload(final int chunk)
    {
        if (sinkFailed)
        {
            return;
        }
        try
        {
            sink.scatterFrom(rxSegment, rxHead, chunk);
        }
        catch (final IllegalStateException ex)
        {
            // the target memory was released while the payload arrived
            sinkFailed = true;
        }
    }

    private void endFrame()
    {
        switch (onEnd)
        {
            case ON_END_ACK:
                respond(TYPE_RESPONSE, sinkFailed ? WcStatus.REM_ACCESS_ERR : WcStatus.SUCCESS, endQpn, endPsn, 0);
                break;

            case ON_END_RECEIVE:
            case ON_END_RECEIVE_NO_ACK:
                final WcStatus status = sinkFailed ? WcStatus.LOC_PROT_ERR : WcStatus.SUCCESS;
                final SoftEndpoint endpoint = endEndpoint;
                endEndpoint = null;
                endpoint.completeReceive(receiveSlot, status, endWriteWithImm, endWithImm, endLength, endImm, endQpn,
                    endFlags);
                if (onEnd == ON_END_RECEIVE)
                {
                    respond(TYPE_RESPONSE, sinkFailed ? WcStatus.REM_OP_ERR : WcStatus.SUCCESS, endQpn, endPsn, 0);
                }
                break;

            default:
                break;
        }
        onEnd = ON_END_NOTHING;
        sink.clear();
    }

    private void respond(final byte type, final WcStatus status, final int qpn, final int psn, final long original)
    {
        final int offset = txTail;
        txBuffer.putInt(offset + FRAME_LENGTH_OFFSET, RESPONSE_HEADER_LENGTH);
        txBuffer.putByte(offset + TYPE_OFFSET, type);
        txBuffer.putByte(offset + RESP_STATUS_OFFSET, (byte)status.code());
        txBuffer.putShort(offset + 6, (short)0);
        txBuffer.putInt(offset + RESP_QPN_OFFSET, qpn);
        txBuffer.putInt(offset + RESP_PSN_OFFSET, psn);
        txBuffer.putLong(offset + RESP_ORIGINAL_OFFSET, original);
        txTail += RESPONSE_HEADER_LENGTH;
        if (type == TYPE_RESPONSE && status != WcStatus.SUCCESS)
        {
            // the requester's QP goes to ERROR on this answer: drop what it already sent behind the request
            if (requestRcQp != null)
            {
                requestRcQp.requesterErrored = true;
            }
            else if (requestDcSource >= 0 && !dcStates.errored(requestDcSource, requestDcIncarnation))
            {
                closeForDcSources();
            }
        }
    }

    /** After the answer is staged: closing gives the staging buffers back. */
    private void closeForDcSources()
    {
        close(String.format("more than %d DC initiators in error or awaiting a retransmission at once (last 0x%x)",
            device.context().tcpMaxDcSourcesPerLink(), requestDcSource));
    }

    private void respondWithPayload(final int qpn, final int psn, final int length)
    {
        respond(TYPE_RESPONSE, WcStatus.SUCCESS, qpn, psn, 0);
        txBuffer.putInt(txTail - RESPONSE_HEADER_LENGTH + FRAME_LENGTH_OFFSET, RESPONSE_HEADER_LENGTH + length);
    }

    void close(final String reason)
    {
        if (closed)
        {
            return;
        }
        closeChannel();
        dcStates.clear();
        pendingPayload.clear();
        sink.clear();
        engine.onClosed(this, reason);
    }
}

package io.dkv.verbs.tcp;

import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.soft.LocalMemory;
import io.dkv.verbs.soft.Progressor;
import io.dkv.verbs.soft.SendSlot;
import io.dkv.verbs.soft.SoftAddressHandle;
import io.dkv.verbs.soft.SoftProtectionDomain;
import io.dkv.verbs.soft.SoftQueuePair;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * A tcp queue pair. Requests are staged on the link to the responder's device and flushed by the
 * posting thread; the engine turns responses into completions. A DC initiator talks to one target
 * at a time, as a hardware DCI does: a request for another target waits until the outstanding
 * ones completed, which keeps go-back-N retransmission to a single target.
 */
final class TcpQueuePair extends SoftQueuePair
{
    private final TcpDevice tcp;
    private final long rnrTimerNanos;
    /** Null when nobody counts them. */
    private final AtomicCounter rnrRetries;
    private final long retryTimeoutNanos;
    private final NanoClock nanoClock;
    private long notReadySince;
    private final OutboundLink[] dirty = new OutboundLink[4];
    private int dirtyCount;
    private final Progressor responsePoller = this::pollResponses;
    private volatile OutboundLink link;
    private volatile OutboundLink dcTargetLink;
    private int dcTargetNumber;
    private long rnrDeadline;

    /**
     * Responder side, engine thread only: after a receiver-not-ready NAK, frames are dropped until this psn returns.
     */
    boolean awaitingPsn;
    int awaitedPsn;
    /** Responder side, engine thread only: the requester's incarnation, and whether it was answered with an error. */
    int requesterIncarnation = -1;
    boolean requesterErrored;
    /** Responder side, engine thread only: the link the connected peer's requests arrive on. */
    InboundLink requesterLink;
    private volatile byte incarnation;

    TcpQueuePair(final TcpDevice tcp, final SoftProtectionDomain pd, final int number,
        final QpInitAttributes attributes)
    {
        super(tcp, pd, number, attributes);
        this.tcp = tcp;
        this.rnrTimerNanos = tcp.context().tcpRnrTimerUs() * 1000L;
        this.rnrRetries = tcp.receiverNotReadyCounter();
        this.retryTimeoutNanos = tcp.context().retryTimeoutMs() * 1_000_000L;
        this.nanoClock = tcp.context().nanoClock();
        if (type != QpType.UD)
        {
            sendCq.addProgressor(responsePoller);
        }
    }

    /**
     * A poller's turn: read responses from the link this QP waits on. Runs without the QP's
     * monitor: completing requests takes it (and other QPs' monitors) as responses are read.
     */
    private void pollResponses()
    {
        if (!hasOutstandingNow())
        {
            return;
        }
        final OutboundLink rcLink = link;
        if (rcLink != null)
        {
            rcLink.pollResponses();
        }
        final OutboundLink dcLink = dcTargetLink;
        if (dcLink != null)
        {
            dcLink.pollResponses();
        }
    }

    /** @return this QP's incarnation: bumped by each reset, carried in every request. */
    byte incarnation()
    {
        return incarnation;
    }

    protected void onStateChanged(final io.dkv.verbs.QpState from, final io.dkv.verbs.QpState to)
    {
        if (to == io.dkv.verbs.QpState.RESET)
        {
            incarnation++;
        }
    }

    protected void connect(final PortAddress peer, final int peerQpn)
    {
        link = tcp.link(peer);
        awaitingPsn = false;
    }

    protected int transmit(final SendSlot slot)
    {
        if (rnrDeadline != 0)
        {
            return TX_BLOCKED;
        }
        final OutboundLink target;
        final byte transport;
        final int dst;
        final long key;
        switch (type)
        {
            case RC:
                target = link;
                transport = TRANSPORT_RC;
                dst = destQpn();
                key = 0;
                break;

            case UD:
                target = route(slot.ah);
                transport = TRANSPORT_UD;
                dst = slot.remoteQpn;
                key = slot.remoteQkey;
                break;

            default:
                target = route(slot.ah);
                transport = TRANSPORT_DC;
                dst = slot.dctNumber;
                key = slot.dcKey;
                if (head != txNext && (target != dcTargetLink || dst != dcTargetNumber))
                {
                    return TX_BLOCKED;
                }
        }
        if (target == null)
        {
            slot.status = type == QpType.UD ? WcStatus.SUCCESS : WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        final int result = target.transmitRequest(this, slot, transport, dst, key);
        if (result == OutboundLink.BLOCKED)
        {
            return TX_BLOCKED;
        }
        if (result == OutboundLink.FAILED)
        {
            slot.status = type == QpType.UD ? WcStatus.SUCCESS : WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        markDirty(target);
        if (type == QpType.UD)
        {
            slot.status = WcStatus.SUCCESS;
            return TX_DONE;
        }
        if (type == QpType.DCI)
        {
            dcTargetLink = target;
            dcTargetNumber = dst;
        }
        return TX_SENT;
    }

    private OutboundLink route(final SoftAddressHandle ah)
    {
        if (ah.route() instanceof OutboundLink cached && cached.isUsable())
        {
            return cached;
        }
        try
        {
            final OutboundLink connected = tcp.link(ah.address());
            ah.route(connected);
            return connected;
        }
        catch (final VerbsException ex)
        {
            return null;
        }
    }

    private void markDirty(final OutboundLink target)
    {
        for (int i = 0; i < dirtyCount; i++)
        {
            if (dirty[i] == target)
            {
                return;
            }
        }
        if (dirtyCount == dirty.length)
        {
            target.flushFromPoster();
            return;
        }
        dirty[dirtyCount++] = target;
    }

    protected void afterTransmit()
    {
        for (int i = 0; i < dirtyCount; i++)
        {
            dirty[i].flushFromPoster();
            dirty[i] = null;
        }
        dirtyCount = 0;
    }

    /** A response arrived for request {@code psn}. */
    synchronized void onResponse(final int psn, final WcStatus status, final long original)
    {
        final SendSlot slot = sentSlot(psn);
        if (slot == null)
        {
            return;
        }
        notReadySince = 0;
        if (status == WcStatus.SUCCESS && slot.opcode.isAtomic())
        {
            try
            {
                LocalMemory.storeAtomicResult(slot, original);
            }
            catch (final IllegalStateException ex)
            {
                completeSend(psn, WcStatus.LOC_PROT_ERR);
                return;
            }
        }
        completeSend(psn, status);
    }

    /**
     * READ data for {@code psn} is arriving: point the sink at the request's local buffers.
     *
     * @return false when no such READ is outstanding (the data is then dropped).
     */
    synchronized boolean prepareRead(final int psn, final long length, final ScatterList sink)
    {
        final SendSlot slot = sentSlot(psn);
        if (slot == null || slot.opcode != io.dkv.verbs.Opcode.RDMA_READ || slot.length != length)
        {
            return false;
        }
        sink.fromSend(slot, length);
        return true;
    }

    /**
     * The responder could not take {@code psn}: it had no receive request (retried without limit,
     * as {@code rnr_retry = 7}) or its QP is still being set up (retried until the retry timeout).
     * Send it and what followed again later.
     */
    synchronized void onReceiverNotReady(final int psn, final boolean qpNotReady)
    {
        final long now = nanoClock.nanoTime();
        if (qpNotReady)
        {
            if (notReadySince == 0)
            {
                notReadySince = now;
            }
            else if (now - notReadySince > retryTimeoutNanos)
            {
                notReadySince = 0;
                completeSend(psn, WcStatus.RETRY_EXC_ERR);
                return;
            }
        }
        if (rewind(psn))
        {
            if (rnrRetries != null)
            {
                rnrRetries.increment();
            }
            rnrDeadline = now + rnrTimerNanos;
            tcp.engine().scheduleRnr(this);
        }
    }

    /** @return true (and clear the timer) when the receiver-not-ready wait is over. Engine thread. */
    synchronized boolean rnrTimerExpired(final long now)
    {
        if (rnrDeadline == 0 || now - rnrDeadline >= 0)
        {
            rnrDeadline = 0;
            return true;
        }
        return false;
    }

    /** A link closed: requests that depended on it fail. */
    synchronized void onLinkClosed(final OutboundLink closedLink)
    {
        final boolean affected =
            link == closedLink || (type == QpType.DCI && dcTargetLink == closedLink && head != txNext);
        if (affected)
        {
            fail(WcStatus.RETRY_EXC_ERR);
        }
    }

    protected void onDestroy()
    {
        sendCq.removeProgressor(responsePoller);
        link = null;
        dcTargetLink = null;
    }
}

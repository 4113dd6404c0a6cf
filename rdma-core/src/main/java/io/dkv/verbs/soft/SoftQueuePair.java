package io.dkv.verbs.soft;

import io.dkv.verbs.Access;
import io.dkv.verbs.DeviceAttributes;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpState;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.ScatterGatherElement;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.SendWorkRequest;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.WcStatus;
import org.agrona.BitUtil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A queue pair of a software device: the send queue with in-order completion, the state machine,
 * flushing on ERROR. How a request reaches its responder is the provider's {@link #transmit}.
 *
 * <p>All state changes happen under the queue pair's monitor: the posting thread, the provider's
 * progress (a poller or NIC engine) and {@link #modify} take turns.
 */
public abstract class SoftQueuePair extends SoftEndpoint implements QueuePair, Progressor
{
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(SoftQueuePair.class, "head", long.class);
            TAIL = lookup.findVarHandle(SoftQueuePair.class, "tail", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The transport finished the request; its status is in {@link SendSlot#status}. */
    protected static final int TX_DONE = 0;
    /** The transport sent the request and will call {@link #completeSend} when it finishes. */
    protected static final int TX_SENT = 1;
    /** The transport cannot take the request now; it is offered again on the next progress. */
    protected static final int TX_BLOCKED = 2;

    protected final QpType type;
    protected final SoftCompletionQueue sendCq;
    private final SendSlot[] slots;
    private final int mask;
    private final int maxSendWr;
    private final int maxSendSge;
    private final int maxInlineData;
    private final boolean sqSigAll;
    private final DeviceAttributes limits;
    private final Arena inlineArena;
    private final ReceiveSlot flushScratch;
    /** Oldest request not yet completed. */
    protected long head;
    /** Next request to hand to the transport. */
    protected long txNext;
    /** Next free slot; also the next packet sequence number. */
    protected long tail;
    private boolean errorPending;
    private volatile QpState state = QpState.RESET;
    private volatile int accessFlags;
    private volatile int qkey;
    private volatile PortAddress destAddress;
    private volatile int destQpn;
    /** Polls that may pass over a queue pair a thread is posting to before one waits for the poster. */
    private static final int MAX_PROGRESS_SKIPPED = 64;
    private volatile boolean destroyed;
    /** A thread is inside postSend, which pumps the send queue on its way out. */
    private volatile boolean posting;
    /** Polls that found a poster inside and did not wait for it, in a row (racy: a hint, not a count). */
    private int progressSkipped;

    protected SoftQueuePair(
        final SoftDevice device,
        final SoftProtectionDomain pd,
        final int number,
        final QpInitAttributes attributes)
    {
        super(
            device,
            pd,
            number,
            (SoftCompletionQueue)attributes.recvCq(),
            (SoftSharedReceiveQueue)attributes.srq(),
            attributes.srq() == null && attributes.type() != QpType.DCI ?
                new ReceiveQueue(String.format("QP 0x%x", number), attributes.maxRecvWr(), attributes.maxRecvSge()) :
                null);
        this.type = attributes.type();
        this.sendCq = (SoftCompletionQueue)attributes.sendCq();
        this.limits = device.attributes();
        this.maxSendWr = attributes.maxSendWr();
        this.maxSendSge = attributes.maxSendSge();
        this.maxInlineData = attributes.maxInlineData();
        this.sqSigAll = attributes.sqSigAll();
        final int capacity = BitUtil.findNextPositivePowerOfTwo(maxSendWr);
        this.mask = capacity - 1;
        this.slots = new SendSlot[capacity];
        this.inlineArena = Arena.ofShared();
        final MemorySegment inline = maxInlineData > 0 ? inlineArena.allocate((long)capacity * maxInlineData, 8) : null;
        for (int i = 0; i < capacity; i++)
        {
            slots[i] = new SendSlot(maxSendSge,
                inline == null ? null : inline.asSlice((long)i * maxInlineData, maxInlineData));
        }
        this.flushScratch = new ReceiveSlot(Math.max(1, attributes.maxRecvSge()));
    }

    public final int qpNum()
    {
        return number;
    }

    public final QpType type()
    {
        return type;
    }

    public final QpState state()
    {
        return state;
    }

    public final int responderAccess()
    {
        return accessFlags;
    }

    public boolean acceptsRequests()
    {
        return !destroyed && state.canReceive();
    }

    public final int qkey()
    {
        return qkey;
    }

    /** @return for RC, the peer set at RTR. */
    public final PortAddress destAddress()
    {
        return destAddress;
    }

    /** @return for RC, the peer QP number set at RTR. */
    public final int destQpn()
    {
        return destQpn;
    }

    public final SoftCompletionQueue sendCq()
    {
        return sendCq;
    }

    public final boolean isDestroyed()
    {
        return destroyed;
    }

    public final synchronized void modify(final QpAttributes attributes)
    {
        requireNotDestroyed();
        final QpState from = state;
        final QpState to = attributes.state();
        if (to == null)
        {
            throw new VerbsException(String.format("modify of QP 0x%x names no target state", number));
        }
        switch (to)
        {
            case RESET:
                discardQueues();
                state = QpState.RESET;
                break;

            case INIT:
                requireFrom(from, to, QpState.RESET, QpState.INIT);
                final int flags = attributes.accessFlags();
                if ((flags & ~Access.ALL) != 0)
                {
                    throw new VerbsException(String.format("QP 0x%x: unknown access flags 0x%x", number, flags));
                }
                accessFlags = flags;
                qkey = attributes.qkey();
                state = QpState.INIT;
                break;

            case RTR:
                requireFrom(from, to, QpState.INIT, QpState.INIT);
                if (type == QpType.RC)
                {
                    final PortAddress peer = attributes.destAddress();
                    if (peer == null || attributes.destQpn() == 0)
                    {
                        throw new VerbsException(String.format(
                            "QP 0x%x: RC needs destAddress and destQpn to move to RTR (got %s, 0x%x)", number, peer,
                            attributes.destQpn()));
                    }
                    if (!peer.provider().equals(device.provider()))
                    {
                        throw new VerbsException(String.format(
                            "QP 0x%x on provider %s cannot connect to %s", number, device.provider(), peer));
                    }
                    connect(peer, attributes.destQpn());
                    destAddress = peer;
                    destQpn = attributes.destQpn();
                }
                state = QpState.RTR;
                break;

            case RTS:
                requireFrom(from, to, QpState.RTR, QpState.RTS);
                state = QpState.RTS;
                pump();
                break;

            case ERROR:
                enterError();
                break;

            default:
                throw new VerbsException(String.format("QP 0x%x: state %s is not supported", number, to));
        }
        onStateChanged(from, state);
    }

    private void requireFrom(final QpState from, final QpState to, final QpState allowedA, final QpState allowedB)
    {
        if (from != allowedA && from != allowedB)
        {
            throw new VerbsException(String.format("QP 0x%x: invalid state transition %s -> %s", number, from, to));
        }
    }

    public final synchronized void postSend(final SendWorkRequest first)
    {
        requireNotDestroyed();
        final QpState current = state;
        if (current == QpState.ERROR)
        {
            for (SendWorkRequest wr = first; wr != null; wr = wr.next())
            {
                sendCq.push(wr.wrId(), WcStatus.WR_FLUSH_ERR, wr.opcode().completionOpcode(), 0, 0, number, 0, 0);
            }
            return;
        }
        if (current != QpState.RTS)
        {
            throw new VerbsException(String.format("QP 0x%x is in state %s; posting a send needs RTS", number,
                current));
        }
        posting = true;
        try
        {
            for (SendWorkRequest wr = first; wr != null; wr = wr.next())
            {
                enqueue(wr);
            }
        }
        finally
        {
            pump();
            posting = false;
        }
    }

    private void enqueue(final SendWorkRequest wr)
    {
        final Opcode opcode = wr.opcode();
        if (opcode == null)
        {
            throw new VerbsException(String.format("send request wrId=%d on QP 0x%x has no opcode", wr.wrId(), number));
        }
        final int numSge = wr.sgList().numSge();
        if (numSge > maxSendSge)
        {
            throw new VerbsException(String.format(
                "send request wrId=%d has %d SGEs; QP 0x%x allows %d", wr.wrId(), numSge, number, maxSendSge));
        }
        final long total = wr.sgList().totalLength();
        final boolean isInline = (wr.sendFlags() & SendFlags.INLINE) != 0 && opcode.carriesPayload();
        validate(wr, opcode, total, isInline);
        if (tail - head >= maxSendWr)
        {
            throw new VerbsException(String.format(
                "send queue of QP 0x%x is full: %d requests outstanding", number, maxSendWr));
        }

        final SendSlot slot = slots[(int)tail & mask];
        slot.psn = (int)tail;
        slot.wrId = wr.wrId();
        slot.opcode = opcode;
        slot.sendFlags = wr.sendFlags();
        slot.signaled = sqSigAll || (wr.sendFlags() & SendFlags.SIGNALED) != 0;
        slot.length = (int)total;
        slot.isInline = isInline;
        slot.localError = null;
        slot.status = null;
        slot.sgList.copyFrom(wr.sgList());
        for (int i = 0; i < numSge; i++)
        {
            slot.sgeRegion[i] = null;
        }
        if (isInline)
        {
            long offset = 0;
            for (int i = 0; i < numSge; i++)
            {
                final ScatterGatherElement sge = slot.sgList.sge(i);
                MemorySegment.copy(LocalMemory.EVERYTHING, sge.addr(), slot.inlineData, offset, sge.length());
                offset += sge.length();
            }
        }
        else
        {
            final boolean writesLocal = opcode == Opcode.RDMA_READ || opcode.isAtomic();
            final WcStatus local = LocalMemory.resolveSend(device, pd, slot, writesLocal);
            slot.localError = local == WcStatus.SUCCESS ? null : local;
        }
        slot.immData = wr.immData();
        slot.remoteAddr = wr.remoteAddr();
        slot.rkey = wr.rkey();
        slot.compareAdd = wr.compareAdd();
        slot.swap = wr.swap();
        slot.ah = (SoftAddressHandle)wr.ah();
        slot.remoteQpn = wr.remoteQpn();
        slot.remoteQkey = wr.remoteQkey();
        slot.dctNumber = wr.dctNumber();
        slot.dcKey = wr.dcKey();
        slot.state = SendSlot.POSTED;
        tail++;
    }

    private void validate(final SendWorkRequest wr, final Opcode opcode, final long total, final boolean isInline)
    {
        if (type == QpType.UD && !opcode.isTwoSided())
        {
            throw new VerbsException(String.format("UD QP 0x%x supports SEND only, not %s (wrId=%d)", number, opcode,
                wr.wrId()));
        }
        if (type != QpType.RC)
        {
            if (!(wr.ah() instanceof SoftAddressHandle ah) || ah.isClosed())
            {
                throw new VerbsException(String.format(
                    "%s request wrId=%d on QP 0x%x needs an open address handle of this device", type, wr.wrId(),
                    number));
            }
            if (ah.pd().softDevice() != device)
            {
                throw new VerbsException(String.format(
                    "address handle %s belongs to another device than QP 0x%x", ah.address(), number));
            }
        }
        if (isInline && total > maxInlineData)
        {
            throw new VerbsException(String.format(
                "inline payload of %d bytes exceeds max_inline_data %d of QP 0x%x", total, maxInlineData, number));
        }
        if (opcode.isAtomic())
        {
            if (wr.sgList().numSge() != 1 || total != 8)
            {
                throw new VerbsException(String.format(
                    "atomic request wrId=%d needs one 8-byte local buffer, got %d SGEs of %d bytes", wr.wrId(),
                    wr.sgList().numSge(), total));
            }
        }
        else if (opcode.isTwoSided())
        {
            if (type == QpType.UD && total > limits.mtu())
            {
                throw new VerbsException(String.format(
                    "UD message of %d bytes exceeds the path MTU %d (QP 0x%x)", total, limits.mtu(), number));
            }
            if (total > limits.maxSendSize())
            {
                throw new VerbsException(String.format(
                    "SEND of %d bytes exceeds max send size %d (QP 0x%x); use RDMA WRITE", total, limits.maxSendSize(),
                    number));
            }
        }
        else if (total > limits.maxMessageSize())
        {
            throw new VerbsException(String.format(
                "%s of %d bytes exceeds max message size %d (QP 0x%x)", opcode, total, limits.maxMessageSize(),
                number));
        }
    }

    public final void postRecv(final RecvWorkRequest first)
    {
        requireNotDestroyed();
        if (rq == null)
        {
            throw new VerbsException(String.format(
                "QP 0x%x has no receive queue of its own (%s); post to its SRQ", number,
                srq != null ? "it uses an SRQ" : type));
        }
        final QpState current = state;
        if (current == QpState.RESET)
        {
            throw new VerbsException(String.format("QP 0x%x is in state RESET; posting a receive needs INIT or later",
                number));
        }
        if (current == QpState.ERROR)
        {
            for (RecvWorkRequest wr = first; wr != null; wr = wr.next())
            {
                pushFlushedReceive(wr.wrId());
            }
            return;
        }
        rq.post(first);
        if (state == QpState.ERROR)
        {
            synchronized (this)
            {
                flushReceiveQueue();
            }
        }
    }

    /**
     * The transport finished a request it had sent.
     *
     * @param psn    the request's sequence number.
     * @param status how it ended.
     * @return false when no such request is outstanding (flushed, or a stale reply).
     */
    public final synchronized boolean completeSend(final int psn, final WcStatus status)
    {
        final SendSlot slot = slots[psn & mask];
        if (slot.state != SendSlot.SENT || slot.psn != psn)
        {
            return false;
        }
        finish(slot, status);
        pump();
        return true;
    }

    /**
     * @param psn a request's sequence number.
     * @return the slot when that request is sent and outstanding, else null. Call with the monitor held.
     */
    protected final SendSlot sentSlot(final int psn)
    {
        final SendSlot slot = slots[psn & mask];
        return slot.state == SendSlot.SENT && slot.psn == psn ? slot : null;
    }

    /**
     * Offer queued requests to the transport again and emit finished completions in order. Call
     * with the monitor held.
     */
    protected final void pump()
    {
        // retire what finished first: a transport that waits for the outstanding requests to finish
        // (a DCI changing target) must not count a finished one it would never be asked about again
        emit();
        final long firstTransmitted = txNext;
        while (txNext < tail && !errorPending && state == QpState.RTS)
        {
            final SendSlot slot = slots[(int)txNext & mask];
            if (slot.state == SendSlot.DONE)
            {
                txNext++;
                continue;
            }
            if (slot.localError != null)
            {
                finish(slot, slot.localError);
            }
            else
            {
                final int result = transmit(slot);
                if (result == TX_BLOCKED)
                {
                    break;
                }
                if (result == TX_DONE)
                {
                    finish(slot, slot.status);
                }
                else
                {
                    slot.state = SendSlot.SENT;
                }
            }
            txNext++;
        }
        if (txNext != firstTransmitted)
        {
            afterTransmit();
        }
        emit();
    }

    /**
     * Hand requests from {@code psn} on back to the transport later, as a go-back-N requester does
     * after a receiver-not-ready NAK. Call with the monitor held.
     *
     * @param psn the oldest request to send again.
     * @return false when {@code psn} is not outstanding.
     */
    protected final boolean rewind(final int psn)
    {
        final long position = txNext - ((int)txNext - psn);
        if (position < head || position >= txNext)
        {
            return false;
        }
        final SendSlot first = slots[(int)position & mask];
        if (first.state != SendSlot.SENT || first.psn != psn)
        {
            return false;
        }
        for (long p = position; p < txNext; p++)
        {
            final SendSlot slot = slots[(int)p & mask];
            if (slot.state == SendSlot.SENT)
            {
                slot.state = SendSlot.POSTED;
            }
        }
        txNext = position;
        return true;
    }

    /**
     * Mark a request finished; its completion is emitted once the requests before it finished.
     * Call with the monitor held.
     */
    protected final void finish(final SendSlot slot, final WcStatus status)
    {
        slot.status = status;
        slot.state = SendSlot.DONE;
        if (status != WcStatus.SUCCESS)
        {
            errorPending = true;
        }
    }

    private void emit()
    {
        while (head < txNext)
        {
            final SendSlot slot = slots[(int)head & mask];
            if (slot.state != SendSlot.DONE)
            {
                return;
            }
            final WcStatus status = slot.status;
            if (status != WcStatus.SUCCESS)
            {
                pushSendCompletion(slot, status);
                release(slot);
                head++;
                enterError();
                return;
            }
            if (slot.signaled)
            {
                pushSendCompletion(slot, status);
            }
            release(slot);
            head++;
        }
    }

    private void pushSendCompletion(final SendSlot slot, final WcStatus status)
    {
        sendCq.push(slot.wrId, status, slot.opcode.completionOpcode(), slot.length, 0, number, 0, 0);
    }

    private static void release(final SendSlot slot)
    {
        slot.state = SendSlot.FREE;
        slot.clearReferences();
    }

    /**
     * Move to ERROR: every outstanding send and receive request completes with WR_FLUSH_ERR, except
     * a send the transport already finished with success and could not report yet (completions go
     * out in order, behind one still outstanding): it took effect, and a flush would invite its
     * sender to do it again (an FAA counted twice). Call with the monitor held.
     */
    protected final void enterError()
    {
        state = QpState.ERROR;
        errorPending = false;
        while (head < tail)
        {
            final SendSlot slot = slots[(int)head & mask];
            if (slot.state == SendSlot.DONE && slot.status == WcStatus.SUCCESS)
            {
                if (slot.signaled)
                {
                    pushSendCompletion(slot, WcStatus.SUCCESS);
                }
            }
            else
            {
                pushSendCompletion(slot, WcStatus.WR_FLUSH_ERR);
            }
            release(slot);
            head++;
        }
        txNext = tail;
        flushReceiveQueue();
        onError();
    }

    private void flushReceiveQueue()
    {
        if (rq != null)
        {
            while (rq.take(flushScratch))
            {
                pushFlushedReceive(flushScratch.wrId);
            }
        }
    }

    private void pushFlushedReceive(final long wrId)
    {
        if (recvCq != null)
        {
            recvCq.push(wrId, WcStatus.WR_FLUSH_ERR, io.dkv.verbs.WcOpcode.RECV, 0, 0, number, 0, 0);
        }
    }

    private void discardQueues()
    {
        while (head < tail)
        {
            release(slots[(int)head & mask]);
            head++;
        }
        txNext = tail;
        errorPending = false;
        if (rq != null)
        {
            rq.clear();
        }
        destAddress = null;
        destQpn = 0;
    }

    protected final void onReceiveError(final WcStatus status)
    {
        if (type == QpType.RC)
        {
            synchronized (this)
            {
                if (state != QpState.ERROR)
                {
                    enterError();
                }
            }
        }
    }

    /**
     * Move to ERROR because the transport failed (peer gone, link cut): outstanding requests
     * complete with {@code status} for the oldest and WR_FLUSH_ERR for the rest.
     */
    public final synchronized void fail(final WcStatus status)
    {
        if (destroyed || state == QpState.ERROR || state == QpState.RESET)
        {
            return;
        }
        if (head < tail)
        {
            final SendSlot slot = slots[(int)head & mask];
            pushSendCompletion(slot, status);
            release(slot);
            head++;
            if (txNext < head)
            {
                txNext = head;
            }
        }
        enterError();
    }

    /**
     * @return true when requests are outstanding (sent or queued).
     */
    protected final boolean hasOutstanding()
    {
        return head != tail;
    }

    /**
     * @return true when requests are outstanding, read without the monitor by another thread (a
     * poller deciding whether to look for responses); may lag a request just posted or completed.
     */
    protected final boolean hasOutstandingNow()
    {
        return (long)HEAD.getAcquire(this) != (long)TAIL.getAcquire(this);
    }

    public final void progress()
    {
        if (destroyed || !needsProgress())
        {
            return;
        }
        // a thread posting to this queue pair pumps its sends before it lets go: a poller need not wait
        // for it, though now and then it does, as acknowledgements and receives come only this way
        if (posting && ++progressSkipped < MAX_PROGRESS_SKIPPED)
        {
            return;
        }
        progressSkipped = 0;
        synchronized (this)
        {
            if (!destroyed)
            {
                progressTransport();
                pump();
            }
        }
    }

    public final void close()
    {
        synchronized (this)
        {
            if (destroyed)
            {
                return;
            }
            destroyed = true;
            discardQueues();
            state = QpState.RESET;
        }
        onDestroy();
        device.onClosed(this);
        inlineArena.close();
    }

    private void requireNotDestroyed()
    {
        if (destroyed)
        {
            throw new VerbsException(String.format("QP 0x%x is destroyed", number));
        }
    }

    /**
     * Hand a request to the transport. Called with the monitor held, in posting order, only in RTS.
     *
     * @return {@link #TX_DONE} (after setting {@link SendSlot#status}), {@link #TX_SENT} or {@link #TX_BLOCKED}.
     */
    protected abstract int transmit(SendSlot slot);

    /** Establish what an RC QP needs to reach its peer; called at RTR with the monitor held. */
    protected abstract void connect(PortAddress peer, int peerQpn);

    /** Requests were handed to the transport in this turn: flush what was batched. */
    protected void afterTransmit()
    {
    }

    /**
     * Whether a progress turn could do anything, judged without the monitor: pollers call progress
     * on every poll of every queue pair attached to their CQ, and most have nothing to do.
     */
    protected boolean needsProgress()
    {
        return true;
    }

    /** Provider work on each progress turn (collect acknowledgements, deliver receives). */
    protected void progressTransport()
    {
    }

    protected void onStateChanged(final QpState from, final QpState to)
    {
    }

    protected void onError()
    {
    }

    protected void onDestroy()
    {
    }

    public String toString()
    {
        return String.format("qp{num=0x%x, type=%s, state=%s, outstanding=%d}", number, type, state, tail - head);
    }
}

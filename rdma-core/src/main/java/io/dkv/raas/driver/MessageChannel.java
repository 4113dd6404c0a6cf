package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * The messaging state of a connection: connecting (CONNECT, then ACCEPT or REFUSE), the peer's
 * vQPN, which the immediate data of every message to it carries, the buffer this side advertises
 * for the peer to WRITE into, and closing. Small messages go as SEND_WITH_IMM into the peer's shared
 * receive queue, limited by message credits the peer grants; larger ones are written with
 * WRITE_WITH_IMM into the buffer the peer advertised (a ring both ends walk the same way, freed by
 * credits), or read by the peer from this side's memory (READ). Sending is the
 * {@link MessageSender}'s, receiving the {@link MessageInbox}'s.
 */
final class MessageChannel
{
    private static final VarHandle ADVERT;

    static
    {
        try
        {
            ADVERT = MethodHandles.lookup().findVarHandle(MessageChannel.class, "advert", MemoryRegion.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    static final int CONNECTING = 0;
    static final int ESTABLISHED = 1;
    static final int REFUSED = 2;
    static final int CLOSED = 3;
    static final int UNREACHABLE = 4;

    private final RaasContext context;
    private final NanoClock nanoClock;
    private final ProtectionDomain pd;
    private final RequestPipeline pipeline;
    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final ConnectAdmission admission;
    private final DriverConnection connection;
    private final MessageSender sender;
    private final MessageInbox inbox;
    private volatile int state = CONNECTING;
    private volatile int peerVqpn;
    /**
     * The process at the other end when the connection was established: its node's address and DC key, which a node
     * restarted gets anew (a node that only registered again, its lease having run out, keeps both).
     */
    private volatile NodeRecord peer;
    private volatile int peerUdQpn;
    private volatile boolean peerClosed;
    private volatile int connectStatus;
    private volatile int refusalReason;
    private volatile int refusalHeld;
    private volatile int refusalLimit;
    /**
     * The buffer the peer WRITEs into. A connection opened here has it from the start; one a peer opened
     * gets it when first used, if admission leaves room ({@link ConnectAdmission}): null until then.
     */
    private volatile MemoryRegion advert;
    /** Admission's entry for a connection a peer opened; null for one opened here. */
    private final ConnectAdmission.Inbound inbound;

    MessageChannel(
        final RaasContext context,
        final ProtectionDomain pd,
        final int mtu,
        final RequestPipeline pipeline,
        final ControlMessages control,
        final ReceiveBuffers receiveBuffers,
        final SendBuffers sendBuffers,
        final Registrations registrations,
        final ConnectAdmission admission,
        final DriverConnection connection,
        final int flags,
        final ConnectAdmission.Inbound inbound)
    {
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.pd = pd;
        this.pipeline = pipeline;
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.admission = admission;
        this.connection = connection;
        this.inbound = inbound;
        if (inbound == null)
        {
            this.advert = pd.allocate(context.advertisedBytes(), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }
        this.sender = new MessageSender(
            context, pd, mtu, pipeline, receiveBuffers, sendBuffers, registrations, this, connection, flags);
        this.inbox = new MessageInbox(
            pd, pipeline, control, receiveBuffers, this, connection, context.messageCredits());
    }

    /** @return the message credits this side grants the peer at connect: its share of the shared receive queue. */
    int grantedCredits()
    {
        return inbox.heldCredits();
    }

    boolean isEstablished()
    {
        return state == ESTABLISHED;
    }

    /** @return true when a message waits, or recv would throw at once because either end closed. */
    boolean isReadable()
    {
        return !inbox.isEmpty() || peerClosed || state != ESTABLISHED;
    }

    /** @return true once this side closed the connection. */
    boolean isClosedHere()
    {
        return state == CLOSED;
    }

    /**
     * @return true once the peer closed the connection, or broke its protocol (which counts the same), or its node is
     * now another process than the one the connection was established with: the route follows a node that
     * restarted, and the new process never knew this connection, while its vQPNs may name others (a CLOSE sent there
     * closed whichever connection had taken the number, and a memory node dropped the persist ring that one owned).
     */
    boolean isPeerClosed()
    {
        final NodeRecord established = peer;
        if (!peerClosed && established != null && restarted(established, connection.route().node))
        {
            peerClosed = true;
        }
        return peerClosed;
    }

    private static boolean restarted(final NodeRecord established, final NodeRecord now)
    {
        // the same record while the route was not read again: every message's check is one comparison
        return now != established &&
            (now.dcKey() != established.dcKey() || !now.address().equals(established.address()));
    }

    /** The peer closed the connection, or broke its protocol: no more messages either way. */
    void markPeerClosed()
    {
        peerClosed = true;
    }

    /** @return the peer's vQPN, which the immediate data of every message to it carries. */
    int peerVqpn()
    {
        return peerVqpn;
    }

    /** @return the peer driver's UD queue pair, for datagrams; 0 when it has none. */
    int peerUdQpn()
    {
        return peerUdQpn;
    }

    /** @return the buffer the peer WRITEs into, or null when there is none (yet, or any more). */
    MemoryRegion advert()
    {
        return advert;
    }

    /** Write where the peer may WRITE into a CONNECT or ACCEPT: nothing (0 bytes) when there is no buffer yet. */
    void writeAdvert(final MemorySegment staging, final int addressOffset, final int rkeyOffset, final int bytesOffset)
    {
        final MemoryRegion advert = this.advert;
        staging.set(LONG, addressOffset, advert == null ? 0 : advert.address());
        staging.set(INT, rkeyOffset, advert == null ? 0 : advert.rkey());
        staging.set(INT, bytesOffset, advert == null ? 0 : (int)advert.length());
    }

    /**
     * A message went or came on a connection a peer opened: it leaves admission's unused connections and,
     * room allowing, gets its advertised buffer, which the peer hears of in an ADVERT.
     */
    void used()
    {
        final ConnectAdmission.Inbound inbound = this.inbound;
        if (inbound == null || inbound.state != ConnectAdmission.UNUSED)
        {
            return;
        }
        final long bytes = admission.onUsed(inbound, context.advertisedBytes());
        if (bytes == 0)
        {
            return;
        }
        final MemoryRegion allocated;
        try
        {
            allocated = pd.allocate(bytes, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }
        catch (final RuntimeException noRoom)
        {
            // the device is out of regions or memory: the connection carries its messages without a buffer
            admission.onAdvertGone(inbound);
            return;
        }
        advert = allocated;
        if (state == CLOSED)
        {
            // closed meanwhile: whoever takes the buffer out deregisters it
            final MemoryRegion taken = (MemoryRegion)ADVERT.getAndSet(this, (MemoryRegion)null);
            if (taken != null)
            {
                taken.deregister();
            }
            return;
        }
        sendAdvert(connection.route(), peerVqpn, connection.vqpn(), allocated.address(), allocated.rkey(),
            (int)allocated.length());
    }

    /** Tell the peer where it may WRITE, once the connection was used: now if a slot is free, else soon. */
    private void sendAdvert(
        final NodeRoute route, final int peerVqpn, final int vqpn, final long address, final int rkey, final int bytes)
    {
        if (isPeerClosed())
        {
            return;
        }
        final RequestSlot slot = control.controlSlot(route, peerVqpn, TYPE_ADVERT, vqpn, 0, ADVERT_LENGTH);
        if (slot == null)
        {
            control.later(() -> sendAdvert(route, peerVqpn, vqpn, address, rkey, bytes));
            return;
        }
        slot.staging.set(LONG, ACCEPT_ADDRESS_OFFSET, address);
        slot.staging.set(INT, ACCEPT_RKEY_OFFSET, rkey);
        slot.staging.set(INT, ACCEPT_BYTES_OFFSET, bytes);
        control.post(slot, ADVERT_LENGTH);
    }

    void establish(
        final int peerVqpn,
        final int credits,
        final long advertAddress,
        final int advertRkey,
        final int advertBytes,
        final int peerUdQpn)
    {
        this.peerVqpn = peerVqpn;
        this.peerUdQpn = peerUdQpn;
        this.peer = connection.route().node;
        sender.establish(credits, advertAddress, advertRkey, advertBytes);
        state = ESTABLISHED;
    }

    void awaitEstablished(final Duration timeout, final int service)
    {
        final long deadline = nanoClock.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (state == CONNECTING)
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if (nanoClock.nanoTime() > deadline)
                {
                    throw new RaasException("node " + connection.nodeId() + " did not answer a connect to service " +
                        service + " within " + timeout.toMillis() + " ms");
                }
            }
        }
        if (state == REFUSED)
        {
            throw new RaasException("node " + connection.nodeId() + " refused the connection to service " + service +
                ": " + describeRefusal(refusalReason, refusalHeld, refusalLimit));
        }
        if (state == UNREACHABLE)
        {
            throw new RaasException("connect to service " + service + " of node " + connection.nodeId() + " failed: " +
                RaasStatus.describe(connectStatus));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // sending and receiving

    void send(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        sender.send(src, offset, length, callFlags);
    }

    boolean trySend(final MemorySegment src, final long offset, final int length)
    {
        return sender.trySend(src, offset, length);
    }

    boolean offer(final MemorySegment src, final long offset, final int length)
    {
        return sender.offer(src, offset, length);
    }

    int recv(final MemorySegment dst, final long offset, final int maxLength, final Duration timeout)
    {
        return inbox.recv(dst, offset, maxLength, timeout);
    }

    ReceivedMessage recvZeroCopy(final Duration timeout)
    {
        return inbox.recvZeroCopy(timeout);
    }

    /** @throws RaasException when a message may not go: the connection is not established, or the peer closed it. */
    void requireOpen()
    {
        if (state != ESTABLISHED)
        {
            throw new RaasException(
                String.format("connection vQPN 0x%x is not established (state %d)", connection.vqpn(), state));
        }
        if (isPeerClosed())
        {
            throw new RaasException(
                String.format("node %d closed connection vQPN 0x%x", connection.nodeId(), connection.vqpn()));
        }
    }

    void onSendFailed(final int status)
    {
        if (status == RaasStatus.CLOSED)
        {
            peerClosed = true;
        }
        else if (state == CONNECTING)
        {
            // the CONNECT itself was not delivered (node gone, or its DC key changed): no answer will come
            connectStatus = status;
            state = UNREACHABLE;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // delivered by the poller

    void onData(final int buffer, final int length)
    {
        inbox.onData(buffer, length);
    }

    void onWritten(final int length)
    {
        inbox.onWritten(length);
    }

    /** The READ of a message the peer left completed. */
    void onReadIn(final RequestSlot slot, final int status)
    {
        inbox.onReadIn(slot, status);
    }

    void onControl(
        final byte type, final long base, final int srcVqpn, final int credits, final int length, final int byteLen)
    {
        final MemorySegment memory = receiveBuffers.memory();
        switch (type)
        {
            case TYPE_REFUSE ->
            {
                if (byteLen >= LENGTH + REFUSE_LENGTH)
                {
                    refusalReason = memory.get(INT, base + REFUSE_REASON_OFFSET);
                    refusalHeld = memory.get(INT, base + REFUSE_HELD_OFFSET);
                    refusalLimit = memory.get(INT, base + REFUSE_LIMIT_OFFSET);
                }
                state = REFUSED;
            }
            case TYPE_ADVERT ->
            {
                if (byteLen >= LENGTH + ADVERT_LENGTH && !sender.hasPeerAdvert() && state == ESTABLISHED)
                {
                    sender.onAdvert(
                        memory.get(LONG, base + ACCEPT_ADDRESS_OFFSET),
                        memory.get(INT, base + ACCEPT_RKEY_OFFSET),
                        memory.get(INT, base + ACCEPT_BYTES_OFFSET));
                }
            }
            case TYPE_ACCEPT -> establish(srcVqpn, credits,
                memory.get(LONG, base + ACCEPT_ADDRESS_OFFSET),
                memory.get(INT, base + ACCEPT_RKEY_OFFSET),
                memory.get(INT, base + ACCEPT_BYTES_OFFSET),
                memory.get(INT, base + ACCEPT_UD_QPN_OFFSET));
            case TYPE_CREDIT -> sender.onCredit(credits, length & 0xffff_ffffL);
            case TYPE_CLOSE -> peerClosed = true;
            case TYPE_READ_REQUEST ->
            {
                used();
                inbox.startReadIn(
                    memory.get(LONG, base + READ_ADDRESS_OFFSET),
                    memory.get(INT, base + READ_RKEY_OFFSET),
                    memory.get(INT, base + READ_TOKEN_OFFSET),
                    length);
            }
            case TYPE_READ_DONE -> sender.onReadDone(memory.get(INT, base + READ_TOKEN_OFFSET));
            default ->
            {
                // unknown: ignored
            }
        }
    }

    void close(final boolean tellPeer)
    {
        final int previous = state;
        state = CLOSED;
        if (tellPeer && previous == ESTABLISHED && !isPeerClosed())
        {
            control.sendSimple(connection.route(), peerVqpn, TYPE_CLOSE, connection.vqpn(), 0, 0);
        }
        inbox.drain();
        final MemoryRegion taken = (MemoryRegion)ADVERT.getAndSet(this, (MemoryRegion)null);
        if (taken != null)
        {
            taken.deregister();
        }
    }
}

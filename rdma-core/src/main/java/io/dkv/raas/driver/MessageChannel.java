package io.dkv.raas.driver;

import io.dkv.raas.Flags;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.SendFlags;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.BYTE;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * The messaging state of a connection. Small messages go as SEND_WITH_IMM into the peer's shared
 * receive queue, limited by message credits the peer grants; larger ones are written with
 * WRITE_WITH_IMM into the buffer the peer advertised (a ring both ends walk the same way, freed by
 * credits), or read by the peer from this side's memory (READ). The vQPN of the receiving end
 * travels in the immediate data.
 */
final class MessageChannel
{
    private static final java.lang.invoke.VarHandle ADVERT;

    static
    {
        try
        {
            ADVERT = java.lang.invoke.MethodHandles.lookup().findVarHandle(MessageChannel.class, "advert", MemoryRegion.class);
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

    private static final int KIND_SEND = 0;
    private static final int KIND_WRITTEN = 1;
    private static final int KIND_READ = 2;

    private final RaasContext context;
    private final ProtectionDomain pd;
    private final int mtu;
    private final RequestPipeline pipeline;
    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final SendBuffers sendBuffers;
    private final Registrations registrations;
    private final ConnectAdmission admission;
    private final DriverConnection connection;
    private final int flags;
    private volatile int state = CONNECTING;
    private volatile int peerVqpn;
    private volatile int peerUdQpn;
    private volatile boolean peerClosed;
    private volatile int connectStatus;
    private volatile int refusalReason;
    private volatile int refusalHeld;
    private volatile int refusalLimit;

    private final AtomicInteger sendCredits = new AtomicInteger();
    private final AtomicLong peerFreed = new AtomicLong();
    private final Object sendLock = new Object();
    private long peerAdvertAddress;
    private int peerAdvertRkey;
    /** 0 until the peer advertised a buffer: an acceptor does once the connection is used. */
    private volatile int peerAdvertBytes;
    private long sendPosition;

    /**
     * The buffer the peer WRITEs into. A connection opened here has it from the start; one a peer opened
     * gets it when first used, if admission leaves room ({@link ConnectAdmission}): null until then.
     */
    private volatile MemoryRegion advert;
    /** Admission's entry for a connection a peer opened; null for one opened here. */
    private final ConnectAdmission.Inbound inbound;
    private final LongQueue inbox;
    private final LongQueue writtenEnds;
    private final ArrayDeque<ReadIn> readIns = new ArrayDeque<>();
    private final ConcurrentHashMap<Integer, ReadOut> readOuts = new ConcurrentHashMap<>();
    private final AtomicInteger nextReadToken = new AtomicInteger(1);
    private final Object recvLock = new Object();
    private long receivePosition;
    private long freedPosition;
    private int creditsToReturn;
    private long bytesToReturn;
    private ZeroCopy outstandingZeroCopy;

    /** A message the peer left for this side to READ, once read. */
    private record ReadIn(MemorySegment data, int length, Runnable release)
    {
    }

    /** A message this side left for the peer to READ. */
    private static final class ReadOut
    {
        volatile boolean done;
    }

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
        this.pd = pd;
        this.mtu = mtu;
        this.pipeline = pipeline;
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.sendBuffers = sendBuffers;
        this.registrations = registrations;
        this.admission = admission;
        this.connection = connection;
        this.flags = flags;
        this.inbound = inbound;
        if (inbound == null)
        {
            this.advert = pd.allocate(context.advertisedBytes(), Access.LOCAL_WRITE | Access.REMOTE_WRITE);
        }
        final int credits = context.messageCredits();
        this.inbox = new LongQueue(credits * 2 + 8);
        this.writtenEnds = new LongQueue(credits * 2 + 8);
    }

    int grantedCredits()
    {
        return context.messageCredits();
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
    private void used()
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
        final int peerVqpn, final int credits, final long advertAddress, final int advertRkey, final int advertBytes, final int peerUdQpn)
    {
        this.peerVqpn = peerVqpn;
        this.peerUdQpn = peerUdQpn;
        this.peerAdvertAddress = advertAddress;
        this.peerAdvertRkey = advertRkey;
        this.peerAdvertBytes = advertBytes;
        sendCredits.set(credits);
        state = ESTABLISHED;
    }

    void awaitEstablished(final Duration timeout, final int service)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (state == CONNECTING)
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if (System.nanoTime() > deadline)
                {
                    throw new RaasException("node " + connection.nodeId() + " did not answer a connect to service " + service +
                        " within " + timeout.toMillis() + " ms");
                }
            }
        }
        if (state == REFUSED)
        {
            throw new RaasException("node " + connection.nodeId() + " refused the connection to service " + service + ": " +
                describeRefusal(refusalReason, refusalHeld, refusalLimit));
        }
        if (state == UNREACHABLE)
        {
            throw new RaasException("connect to service " + service + " of node " + connection.nodeId() + " failed: " +
                RaasStatus.describe(connectStatus));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // sending

    void send(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        Flags.validate(callFlags);
        if (length < 0 || offset < 0 || offset > src.byteSize() - length)
        {
            throw new RaasException("send of " + length + " bytes at offset " + offset + " of a " + src.byteSize() + "-byte buffer");
        }
        requireOpen();
        used();
        final int all = callFlags | flags;
        if ((all & Flags.FORCE_UD) != 0)
        {
            sendByDatagram(src, offset, length, all);
            return;
        }
        final boolean fitsSend = length + LENGTH <= receiveBuffers.bufferBytes();
        // until the peer advertised a buffer (an acceptor does once the connection was used), nothing to WRITE into
        final int advertised = peerAdvertBytes;
        if ((all & Flags.USE_READ) != 0 || (length > advertised && (all & Flags.USE_SEND) == 0 && !fitsSend))
        {
            sendByRead(src, offset, length, all);
        }
        else if (advertised > 0 &&
            ((all & Flags.USE_WRITE) != 0 || ((all & Flags.USE_SEND) == 0 && (length > context.sendThreshold() || !fitsSend))))
        {
            sendByWrite(src, offset, length, all);
        }
        else
        {
            if (!fitsSend)
            {
                throw new RaasException("SEND of " + length + " bytes exceeds the receive buffers of " +
                    (receiveBuffers.bufferBytes() - LENGTH) + " payload bytes");
            }
            sendBySend(src, offset, length, all);
        }
    }

    private void requireOpen()
    {
        if (state != ESTABLISHED)
        {
            throw new RaasException(String.format("connection vQPN 0x%x is not established (state %d)", connection.vqpn(), state));
        }
        if (peerClosed)
        {
            throw new RaasException(String.format("node %d closed connection vQPN 0x%x", connection.nodeId(), connection.vqpn()));
        }
    }

    private void acquireMessageCredit()
    {
        final long deadline = System.nanoTime() + context.timeoutMs() * 1_000_000L;
        int spins = 0;
        while (true)
        {
            final int credits = sendCredits.get();
            if (credits > 0)
            {
                if (sendCredits.compareAndSet(credits, credits - 1))
                {
                    return;
                }
                continue;
            }
            requireOpen();
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if ((spins & 1023) == 0 && System.nanoTime() > deadline)
                {
                    throw new RaasException(String.format("node %d granted no message credit to vQPN 0x%x within %d ms",
                        connection.nodeId(), connection.vqpn(), context.timeoutMs()));
                }
            }
        }
    }

    private RequestSlot messageSlot(final Opcode opcode)
    {
        final RequestSlot slot = pipeline.acquireSlot();
        slot.kind = RequestSlot.KIND_MESSAGE;
        slot.connection = connection;
        slot.route = connection.route();
        slot.vqpn = connection.vqpn();
        slot.opcode = opcode;
        slot.sync = true;
        slot.wr.reset().wrId(slot.wrId()).opcode(opcode).immData(peerVqpn).sendFlags(SendFlags.SIGNALED);
        return slot;
    }

    private static void writeHeader(final MemorySegment memory, final long at, final byte type, final int srcVqpn, final int length)
    {
        memory.set(BYTE, at + TYPE_OFFSET, type);
        memory.set(BYTE, at + FLAGS_OFFSET, (byte)0);
        memory.set(INT, at + SRC_VQPN_OFFSET, srcVqpn);
        memory.set(INT, at + CREDITS_OFFSET, 0);
        memory.set(INT, at + LENGTH_OFFSET, length);
    }

    private void sendBySend(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        acquireMessageCredit();
        final RequestSlot slot = messageSlot(Opcode.SEND_WITH_IMM);
        stageAndSend(slot, src, offset, length, callFlags, "SEND");
    }

    /**
     * Put the message (header and payload) into the slot's staging memory, or a send buffer when it
     * does not fit, post it and wait until it was sent.
     */
    private void stageAndSend(
        final RequestSlot slot, final MemorySegment src, final long offset, final int length, final int callFlags, final String what)
    {
        final int total = LENGTH + length;
        if (total <= slot.staging.byteSize())
        {
            writeHeader(slot.staging, 0, TYPE_DATA, connection.vqpn(), length);
            MemorySegment.copy(src, offset, slot.staging, LENGTH, length);
            slot.sendStaged(total);
            if ((callFlags & Flags.INLINE) != 0 && total <= 64)
            {
                slot.wr.sendFlags(SendFlags.SIGNALED | SendFlags.INLINE);
            }
        }
        else
        {
            final SendBuffers.SendBuffer buffer = sendBuffers.acquire(pipeline);
            slot.sendBuffer = buffer.index;
            writeHeader(sendBuffers.segment(), buffer.offset, TYPE_DATA, connection.vqpn(), length);
            MemorySegment.copy(src, offset, sendBuffers.segment(), buffer.offset + LENGTH, length);
            slot.wr.local(sendBuffers.region(), buffer.offset, total);
        }
        synchronized (sendLock)
        {
            pipeline.submit(slot);
        }
        awaitSent(slot, what, length);
    }

    /**
     * A message as a UD datagram through the driver's UD queue pair: at most one MTU (header
     * included), counted against the same message credits as a SEND so the receiver has a buffer
     * for it.
     */
    private void sendByDatagram(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        final int total = LENGTH + length;
        final int limit = Math.min(mtu, receiveBuffers.bufferBytes());
        if (total > limit)
        {
            throw new RaasException("datagram of " + length + " bytes exceeds the " + (limit - LENGTH) +
                " payload bytes a UD message may carry (MTU " + mtu + ")");
        }
        if (peerUdQpn == 0)
        {
            throw new RaasException(String.format("node %d has no UD queue pair for vQPN 0x%x", connection.nodeId(), connection.vqpn()));
        }
        acquireMessageCredit();
        final RequestSlot slot = messageSlot(Opcode.SEND_WITH_IMM);
        slot.udQpn = peerUdQpn;
        stageAndSend(slot, src, offset, length, callFlags, "UD send");
    }

    private void sendByWrite(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        if (length > peerAdvertBytes)
        {
            throw new RaasException("WRITE of a " + length + "-byte message exceeds the " + peerAdvertBytes +
                " bytes node " + connection.nodeId() + " advertised; send it with USE_READ");
        }
        acquireMessageCredit();
        final RequestSlot slot = messageSlot(Opcode.RDMA_WRITE_WITH_IMM);
        MemoryRegion temporary = null;
        if (length <= sendBuffers.bufferBytes() && (callFlags & Flags.REGISTER) == 0 &&
            (length <= context.copyThreshold() || (callFlags & Flags.COPY) != 0 || !src.isNative()))
        {
            final SendBuffers.SendBuffer buffer = sendBuffers.acquire(pipeline);
            slot.sendBuffer = buffer.index;
            MemorySegment.copy(src, offset, sendBuffers.segment(), buffer.offset, length);
            slot.wr.local(sendBuffers.region(), buffer.offset, length);
        }
        else if (src.isNative())
        {
            final MemoryRegion registered = registrations.registered(src);
            slot.wr.local(registered, src.address() - registered.address() + offset, length);
        }
        else
        {
            temporary = pd.allocate(length, Access.LOCAL_WRITE);
            MemorySegment.copy(src, offset, temporary.segment(), 0, length);
            slot.wr.local(temporary, 0, length);
        }
        try
        {
            synchronized (sendLock)
            {
                final long ring = peerAdvertBytes;
                final long physical = sendPosition % ring;
                final long skip = physical + length > ring ? ring - physical : 0;
                final long deadline = System.nanoTime() + context.timeoutMs() * 1_000_000L;
                int spins = 0;
                // bytes skipped at the end of the ring are free once everything before them is: an empty
                // ring takes any message, otherwise what is skipped and written must fit what is free
                long used;
                while ((used = sendPosition - peerFreed.get()) != 0 && ring - used < skip + length)
                {
                    requireOpen();
                    if (pipeline.poll() == 0)
                    {
                        RequestPipeline.idle(++spins);
                        if ((spins & 1023) == 0 && System.nanoTime() > deadline)
                        {
                            throw new RaasException(describe("WRITE", length) + ": the peer's buffer stayed full for " +
                                context.timeoutMs() + " ms");
                        }
                    }
                }
                sendPosition += skip;
                final long at = sendPosition % ring;
                sendPosition += length;
                slot.wr.remote(peerAdvertAddress + at, peerAdvertRkey);
                pipeline.submit(slot);
            }
            awaitSent(slot, "WRITE", length);
        }
        finally
        {
            if (temporary != null)
            {
                temporary.deregister();
            }
        }
    }

    private void sendByRead(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        final MemoryRegion source;
        final long sourceOffset;
        final boolean temporary;
        if (src.isNative() && (callFlags & Flags.COPY) == 0)
        {
            source = registrations.registered(src);
            sourceOffset = src.address() - source.address() + offset;
            temporary = false;
        }
        else
        {
            source = pd.allocate(Math.max(1, length), Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemorySegment.copy(src, offset, source.segment(), 0, length);
            sourceOffset = 0;
            temporary = true;
        }
        MemoryRegion readable = source;
        if (!temporary)
        {
            try
            {
                readable = registrations.readable(source);
            }
            catch (final io.dkv.verbs.VerbsException providerRefused)
            {
                // the provider lets peers reach only memory it allocated (shm): send a copy from such memory
                sendByRead(src, offset, length, callFlags | Flags.COPY);
                return;
            }
        }
        final int token = nextReadToken.getAndIncrement();
        final ReadOut wait = new ReadOut();
        readOuts.put(token, wait);
        try
        {
            acquireMessageCredit();
            final RequestSlot slot = messageSlot(Opcode.SEND_WITH_IMM);
            writeHeader(slot.staging, 0, TYPE_READ_REQUEST, connection.vqpn(), length);
            slot.staging.set(LONG, READ_ADDRESS_OFFSET, readable.address() + sourceOffset);
            slot.staging.set(INT, READ_RKEY_OFFSET, readable.rkey());
            slot.staging.set(INT, READ_TOKEN_OFFSET, token);
            slot.sendStaged(LENGTH + READ_LENGTH);
            synchronized (sendLock)
            {
                pipeline.submit(slot);
            }
            awaitSent(slot, "READ request", length);
            final long deadline = System.nanoTime() + context.timeoutMs() * 1_000_000L;
            int spins = 0;
            while (!wait.done)
            {
                requireOpen();
                if (pipeline.poll() == 0)
                {
                    RequestPipeline.idle(++spins);
                    if ((spins & 1023) == 0 && System.nanoTime() > deadline)
                    {
                        throw new RaasException(describe("READ", length) + ": the peer did not read it within " +
                            context.timeoutMs() + " ms");
                    }
                }
            }
        }
        finally
        {
            readOuts.remove(token);
            if (temporary)
            {
                source.deregister();
            }
        }
    }

    /** Wait until a message request completed; its description is built only on failure. */
    private void awaitSent(final RequestSlot slot, final String how, final int length)
    {
        final int status = pipeline.awaitStatus(slot);
        pipeline.releaseSlot(slot);
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(describe(how, length) + " failed: " + RaasStatus.describe(status));
        }
    }

    private String describe(final String how, final int length)
    {
        return String.format("%s of a %d-byte message to node %d (vQPN 0x%x)", how, length, connection.nodeId(), connection.vqpn());
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
    // receiving (the poller calls the on* methods)

    private static long entry(final int kind, final long a, final int length)
    {
        return ((long)kind << 62) | ((a & 0x3fff_ffffL) << 32) | (length & 0xffff_ffffL);
    }

    void onData(final int buffer, final int length)
    {
        used();
        if (!inbox.offer(entry(KIND_SEND, buffer, length)))
        {
            // more messages than the credits granted: the peer broke the protocol; the message is dropped
            receiveBuffers.repost(buffer);
        }
    }

    void onWritten(final int length)
    {
        final MemoryRegion advert = this.advert;
        if (advert == null)
        {
            // a WRITE_WITH_IMM with no buffer advertised (a zero-length one needs no rkey): the peer broke the protocol
            peerClosed = true;
            return;
        }
        final long ring = advert.length();
        final long physical = receivePosition % ring;
        if (physical + length > ring)
        {
            receivePosition += ring - physical;
        }
        final long at = receivePosition % ring;
        receivePosition += length;
        if (!writtenEnds.offer(receivePosition) || !inbox.offer(entry(KIND_WRITTEN, at, length)))
        {
            peerClosed = true;
        }
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
                if (byteLen >= LENGTH + ADVERT_LENGTH && peerAdvertBytes == 0 && state == ESTABLISHED)
                {
                    peerAdvertAddress = memory.get(LONG, base + ACCEPT_ADDRESS_OFFSET);
                    peerAdvertRkey = memory.get(INT, base + ACCEPT_RKEY_OFFSET);
                    peerAdvertBytes = memory.get(INT, base + ACCEPT_BYTES_OFFSET);
                }
            }
            case TYPE_ACCEPT -> establish(srcVqpn, credits,
                memory.get(LONG, base + ACCEPT_ADDRESS_OFFSET),
                memory.get(INT, base + ACCEPT_RKEY_OFFSET),
                memory.get(INT, base + ACCEPT_BYTES_OFFSET),
                memory.get(INT, base + ACCEPT_UD_QPN_OFFSET));
            case TYPE_CREDIT ->
            {
                sendCredits.addAndGet(credits);
                peerFreed.addAndGet(length & 0xffff_ffffL);
            }
            case TYPE_CLOSE -> peerClosed = true;
            case TYPE_READ_REQUEST ->
            {
                used();
                startReadIn(
                    memory.get(LONG, base + READ_ADDRESS_OFFSET),
                    memory.get(INT, base + READ_RKEY_OFFSET),
                    memory.get(INT, base + READ_TOKEN_OFFSET),
                    length);
            }
            case TYPE_READ_DONE ->
            {
                final ReadOut wait = readOuts.get(memory.get(INT, base + READ_TOKEN_OFFSET));
                if (wait != null)
                {
                    wait.done = true;
                }
            }
            default ->
            {
                // unknown: ignored
            }
        }
    }

    /**
     * The peer left a large message for this side to READ: fetch it into fresh registered memory,
     * then queue it and tell the peer its buffer is free.
     */
    private void startReadIn(final long address, final int rkey, final int token, final int length)
    {
        final RequestSlot slot = pipeline.tryAcquireSlot();
        if (slot == null || length < 0)
        {
            if (slot != null)
            {
                pipeline.releaseSlot(slot);
            }
            peerClosed = true;
            return;
        }
        final MemoryRegion destination = pd.allocate(Math.max(1, length), Access.LOCAL_WRITE);
        slot.kind = RequestSlot.KIND_READ_IN;
        slot.connection = connection;
        slot.route = connection.route();
        slot.vqpn = connection.vqpn();
        slot.opcode = Opcode.RDMA_READ;
        slot.length = length;
        slot.token = token;
        slot.attachment = destination;
        slot.wr.reset().wrId(slot.wrId()).opcode(Opcode.RDMA_READ).sendFlags(SendFlags.SIGNALED)
            .local(destination, 0, length).remote(address, rkey);
        pipeline.submit(slot);
    }

    /** The READ of a message the peer left completed. Called by the poller. */
    void onReadIn(final RequestSlot slot, final int status)
    {
        final MemoryRegion destination = (MemoryRegion)slot.attachment;
        if (status != RaasStatus.SUCCESS)
        {
            destination.deregister();
            peerClosed = true;
            return;
        }
        synchronized (readIns)
        {
            readIns.add(new ReadIn(destination.segment(), slot.length, destination::deregister));
        }
        if (!inbox.offer(entry(KIND_READ, 0, slot.length)))
        {
            peerClosed = true;
        }
        final RequestSlot done = control.controlSlot(slot.route, peerVqpn, TYPE_READ_DONE, connection.vqpn(), 0, READ_LENGTH);
        if (done != null)
        {
            done.staging.set(INT, READ_TOKEN_OFFSET, (int)slot.token);
            control.post(done, READ_LENGTH);
        }
    }

    int recv(final MemorySegment dst, final long offset, final int maxLength, final Duration timeout)
    {
        synchronized (recvLock)
        {
            final long entry = awaitMessage(timeout);
            final int kind = (int)(entry >>> 62);
            final long at = (entry >>> 32) & 0x3fff_ffffL;
            final int length = (int)entry;
            try
            {
                if (length > maxLength || offset < 0 || offset > dst.byteSize() - Math.min(length, maxLength))
                {
                    throw new RaasException("message of " + length + " bytes does not fit the " + maxLength +
                        " bytes offered; it is dropped");
                }
                MemorySegment.copy(source(kind, at, length), 0, dst, offset, length);
                return length;
            }
            finally
            {
                consumed(kind, at);
            }
        }
    }

    ReceivedMessage recvZeroCopy(final Duration timeout)
    {
        synchronized (recvLock)
        {
            if (outstandingZeroCopy != null)
            {
                throw new RaasException(String.format("release the previous message of vQPN 0x%x first", connection.vqpn()));
            }
            final long entry = awaitMessage(timeout);
            final int kind = (int)(entry >>> 62);
            final long at = (entry >>> 32) & 0x3fff_ffffL;
            final int length = (int)entry;
            outstandingZeroCopy = new ZeroCopy(source(kind, at, length), kind, at);
            return outstandingZeroCopy;
        }
    }

    private final class ZeroCopy implements ReceivedMessage
    {
        private final MemorySegment payload;
        private final int kind;
        private final long at;
        private boolean released;

        ZeroCopy(final MemorySegment payload, final int kind, final long at)
        {
            this.payload = payload;
            this.kind = kind;
            this.at = at;
        }

        public MemorySegment payload()
        {
            if (released)
            {
                throw new RaasException("message was released");
            }
            return payload;
        }

        public void release()
        {
            synchronized (recvLock)
            {
                if (!released)
                {
                    released = true;
                    outstandingZeroCopy = null;
                    consumed(kind, at);
                }
            }
        }
    }

    private long awaitMessage(final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (inbox.isEmpty())
        {
            if (state == CLOSED)
            {
                throw new RaasException(String.format("connection vQPN 0x%x is closed", connection.vqpn()));
            }
            if (peerClosed)
            {
                throw new RaasException(String.format("node %d closed connection vQPN 0x%x", connection.nodeId(), connection.vqpn()));
            }
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if ((spins & 255) == 0 && System.nanoTime() > deadline)
                {
                    throw new RaasException(String.format("no message on vQPN 0x%x from node %d within %d ms",
                        connection.vqpn(), connection.nodeId(), timeout.toMillis()));
                }
            }
        }
        return inbox.peek();
    }

    private MemorySegment source(final int kind, final long at, final int length)
    {
        return switch (kind)
        {
            case KIND_SEND -> receiveBuffers.memory().asSlice(receiveBuffers.offset((int)at) + LENGTH, length);
            case KIND_WRITTEN -> advert.segment().asSlice(at, length);
            default ->
            {
                synchronized (readIns)
                {
                    yield readIns.peek().data().asSlice(0, length);
                }
            }
        };
    }

    /** The oldest message was consumed: give its buffer back and, in time, the credits. */
    private void consumed(final int kind, final long at)
    {
        inbox.remove();
        switch (kind)
        {
            case KIND_SEND -> receiveBuffers.repost((int)at);
            case KIND_WRITTEN ->
            {
                final long end = writtenEnds.peek();
                writtenEnds.remove();
                bytesToReturn += end - freedPosition;
                freedPosition = end;
            }
            default ->
            {
                final ReadIn readIn;
                synchronized (readIns)
                {
                    readIn = readIns.poll();
                }
                readIn.release().run();
            }
        }
        creditsToReturn++;
        final MemoryRegion advert = this.advert;
        if (creditsToReturn >= Math.max(1, grantedCredits() / 2) || (advert != null && bytesToReturn >= advert.length() / 4) ||
            inbox.isEmpty())
        {
            control.sendSimple(connection.route(), peerVqpn, TYPE_CREDIT, connection.vqpn(), creditsToReturn, (int)bytesToReturn);
            creditsToReturn = 0;
            bytesToReturn = 0;
        }
    }

    void close(final boolean tellPeer)
    {
        final int previous = state;
        state = CLOSED;
        if (tellPeer && previous == ESTABLISHED && !peerClosed)
        {
            control.sendSimple(connection.route(), peerVqpn, TYPE_CLOSE, connection.vqpn(), 0, 0);
        }
        synchronized (recvLock)
        {
            while (!inbox.isEmpty())
            {
                final long entry = inbox.peek();
                inbox.remove();
                if ((int)(entry >>> 62) == KIND_SEND)
                {
                    receiveBuffers.repost((int)((entry >>> 32) & 0x3fff_ffffL));
                }
            }
        }
        final MemoryRegion taken = (MemoryRegion)ADVERT.getAndSet(this, (MemoryRegion)null);
        if (taken != null)
        {
            taken.deregister();
        }
    }
}

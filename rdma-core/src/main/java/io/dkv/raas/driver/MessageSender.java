package io.dkv.raas.driver;

import io.dkv.raas.Flags;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.SendFlags;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.BYTE;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * The sending half of a connection's messaging ({@link MessageChannel}): a message goes as a SEND into
 * the peer's shared receive queue (or a UD datagram), limited by the message credits the peer grants;
 * as a WRITE_WITH_IMM into the buffer the peer advertised, a ring both ends walk the same way, freed
 * by the bytes the peer reports consumed; or it is left in this side's memory for the peer to READ.
 * Each send waits until its message was delivered.
 */
final class MessageSender
{
    private final RaasContext context;
    private final NanoClock nanoClock;
    private final ProtectionDomain pd;
    private final int mtu;
    private final RequestPipeline pipeline;
    private final ReceiveBuffers receiveBuffers;
    private final SendBuffers sendBuffers;
    private final Registrations registrations;
    private final MessageChannel channel;
    private final DriverConnection connection;
    private final int flags;
    private final AtomicInteger sendCredits = new AtomicInteger();
    private final AtomicLong peerFreed = new AtomicLong();
    private final Object sendLock = new Object();
    private long peerAdvertAddress;
    private int peerAdvertRkey;
    /** 0 until the peer advertised a buffer: an acceptor does once the connection is used. */
    private volatile int peerAdvertBytes;
    private long sendPosition;
    private final ConcurrentHashMap<Integer, ReadOut> readOuts = new ConcurrentHashMap<>();
    private final AtomicInteger nextReadToken = new AtomicInteger(1);

    /** A message this side left for the peer to READ. */
    private static final class ReadOut
    {
        volatile boolean done;
    }

    MessageSender(
        final RaasContext context,
        final ProtectionDomain pd,
        final int mtu,
        final RequestPipeline pipeline,
        final ReceiveBuffers receiveBuffers,
        final SendBuffers sendBuffers,
        final Registrations registrations,
        final MessageChannel channel,
        final DriverConnection connection,
        final int flags)
    {
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.pd = pd;
        this.mtu = mtu;
        this.pipeline = pipeline;
        this.receiveBuffers = receiveBuffers;
        this.sendBuffers = sendBuffers;
        this.registrations = registrations;
        this.channel = channel;
        this.connection = connection;
        this.flags = flags;
    }

    /** The connection is established: the credits the peer granted, and where it lets this side WRITE. */
    void establish(final int credits, final long advertAddress, final int advertRkey, final int advertBytes)
    {
        peerAdvertAddress = advertAddress;
        peerAdvertRkey = advertRkey;
        peerAdvertBytes = advertBytes;
        sendCredits.set(credits);
    }

    /** @return true once the peer told where this side may WRITE. */
    boolean hasPeerAdvert()
    {
        return peerAdvertBytes != 0;
    }

    /** The peer (an acceptor, once the connection was used) tells where this side may WRITE. */
    void onAdvert(final long address, final int rkey, final int bytes)
    {
        peerAdvertAddress = address;
        peerAdvertRkey = rkey;
        peerAdvertBytes = bytes;
    }

    /** The peer consumed messages: credits back, and bytes of its buffer free again. */
    void onCredit(final int credits, final long bytesFreed)
    {
        sendCredits.addAndGet(credits);
        peerFreed.addAndGet(bytesFreed);
    }

    /** The peer read the message this side left for it under the token. */
    void onReadDone(final int token)
    {
        final ReadOut wait = readOuts.get(token);
        if (wait != null)
        {
            wait.done = true;
        }
    }

    void send(final MemorySegment src, final long offset, final int length, final int callFlags)
    {
        Flags.validate(callFlags);
        if (length < 0 || offset < 0 || offset > src.byteSize() - length)
        {
            throw new RaasException(
                "send of " + length + " bytes at offset " + offset + " of a " + src.byteSize() + "-byte buffer");
        }
        channel.requireOpen();
        channel.used();
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
        else if (advertised > 0 && ((all & Flags.USE_WRITE) != 0 ||
            ((all & Flags.USE_SEND) == 0 && (length > context.sendThreshold() || !fitsSend))))
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

    /**
     * Send as a SEND when the peer granted a message credit now; never wait for one, since the peer
     * returns credits only as its application consumes messages: a caller that waited here could not
     * consume the peer's messages meanwhile, and two such callers would wait on each other.
     *
     * @return false (nothing sent) when no credit is left.
     */
    boolean trySend(final MemorySegment src, final long offset, final int length)
    {
        requireSendable("send", src, offset, length);
        channel.used();
        if (!tryTakeCredit())
        {
            return false;
        }
        stageAndSend(messageSlot(Opcode.SEND_WITH_IMM), src, offset, length, flags, "SEND");
        return true;
    }

    /**
     * @throws RaasException when the range lies outside the buffer, the channel is not open, or the message (header
     *                       included) exceeds a receive buffer, which a SEND must fit.
     */
    private void requireSendable(final String what, final MemorySegment src, final long offset, final int length)
    {
        if (length < 0 || offset < 0 || offset > src.byteSize() - length)
        {
            throw new RaasException(
                what + " of " + length + " bytes at offset " + offset + " of a " + src.byteSize() + "-byte buffer");
        }
        channel.requireOpen();
        if (length + LENGTH > receiveBuffers.bufferBytes())
        {
            throw new RaasException(what + " of " + length + " bytes exceeds the receive buffers of " +
                (receiveBuffers.bufferBytes() - LENGTH) + " payload bytes");
        }
    }

    /**
     * Post a message as a SEND without waiting for anything: a credit must be there now, and a request slot free; the
     * completion releases the slot (see {@link io.dkv.raas.Connection#offer}).
     *
     * @return false (nothing sent) when no credit is left or no slot is free.
     */
    boolean offer(final MemorySegment src, final long offset, final int length)
    {
        requireSendable("offer", src, offset, length);
        final int total = LENGTH + length;
        if (!tryTakeCredit())
        {
            return false;
        }
        final RequestSlot slot = pipeline.tryAcquireSlot();
        if (slot == null)
        {
            sendCredits.incrementAndGet();
            return false;
        }
        if (total > slot.staging.byteSize())
        {
            sendCredits.incrementAndGet();
            pipeline.releaseSlot(slot);
            throw new RaasException("offer of " + length + " bytes exceeds the " + (slot.staging.byteSize() - LENGTH) +
                " payload bytes a request stages; send it");
        }
        channel.used();
        slot.kind = RequestSlot.KIND_MESSAGE;
        slot.connection = connection;
        slot.route = connection.route();
        slot.vqpn = connection.vqpn();
        slot.opcode = Opcode.SEND_WITH_IMM;
        // nobody waits: the completion releases the slot (CompletionPoller.complete, no handler)
        slot.sync = false;
        slot.wr.reset().wrId(slot.wrId()).opcode(Opcode.SEND_WITH_IMM).immData(channel.peerVqpn())
            .sendFlags(SendFlags.SIGNALED);
        writeHeader(slot.staging, 0, TYPE_DATA, connection.vqpn(), length);
        MemorySegment.copy(src, offset, slot.staging, LENGTH, length);
        slot.sendStaged(total);
        synchronized (sendLock)
        {
            pipeline.submit(slot);
        }
        return true;
    }

    /** @return true when a message credit was taken now; one poll may first bring those the peer returned. */
    private boolean tryTakeCredit()
    {
        boolean polled = false;
        while (true)
        {
            final int credits = sendCredits.get();
            if (credits <= 0)
            {
                if (polled)
                {
                    return false;
                }
                polled = true;
                pipeline.poll();
                continue;
            }
            if (sendCredits.compareAndSet(credits, credits - 1))
            {
                return true;
            }
        }
    }

    private void acquireMessageCredit()
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        int spins = 0;
        boolean waited = false;
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
            channel.requireOpen();
            if (!waited)
            {
                // counted once a wait: how often the peer's application fell behind this side's sends
                waited = true;
                pipeline.counters().get(DriverCounter.MESSAGE_CREDIT_WAITS).increment();
            }
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
                if ((spins & 1023) == 0 && nanoClock.nanoTime() > deadline)
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
        slot.wr.reset().wrId(slot.wrId()).opcode(opcode).immData(channel.peerVqpn()).sendFlags(SendFlags.SIGNALED);
        return slot;
    }

    private static void writeHeader(
        final MemorySegment memory, final long at, final byte type, final int srcVqpn, final int length)
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
        final RequestSlot slot,
        final MemorySegment src,
        final long offset,
        final int length,
        final int callFlags,
        final String what)
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
            slot.sendBuffer = buffer.index();
            writeHeader(sendBuffers.segment(), buffer.offset(), TYPE_DATA, connection.vqpn(), length);
            MemorySegment.copy(src, offset, sendBuffers.segment(), buffer.offset() + LENGTH, length);
            slot.wr.local(sendBuffers.region(), buffer.offset(), total);
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
        final int peerUdQpn = channel.peerUdQpn();
        if (peerUdQpn == 0)
        {
            throw new RaasException(
                String.format("node %d has no UD queue pair for vQPN 0x%x", connection.nodeId(), connection.vqpn()));
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
            slot.sendBuffer = buffer.index();
            MemorySegment.copy(src, offset, sendBuffers.segment(), buffer.offset(), length);
            slot.wr.local(sendBuffers.region(), buffer.offset(), length);
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
                final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
                int spins = 0;
                // bytes skipped at the end of the ring are free once everything before them is: an empty
                // ring takes any message, otherwise what is skipped and written must fit what is free
                long used;
                while ((used = sendPosition - peerFreed.get()) != 0 && ring - used < skip + length)
                {
                    channel.requireOpen();
                    if (pipeline.poll() == 0)
                    {
                        RequestPipeline.idle(++spins);
                        if ((spins & 1023) == 0 && nanoClock.nanoTime() > deadline)
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
            final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
            int spins = 0;
            while (!wait.done)
            {
                channel.requireOpen();
                if (pipeline.poll() == 0)
                {
                    RequestPipeline.idle(++spins);
                    if ((spins & 1023) == 0 && nanoClock.nanoTime() > deadline)
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
        return String.format("%s of a %d-byte message to node %d (vQPN 0x%x)",
            how, length, connection.nodeId(), connection.vqpn());
    }
}

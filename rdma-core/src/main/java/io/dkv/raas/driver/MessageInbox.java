package io.dkv.raas.driver;

import io.dkv.agent.Waits;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.SendFlags;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.INT;

/**
 * The receiving half of a connection's messaging ({@link MessageChannel}): messages in arrival order,
 * each a SEND in a receive buffer of the shared queue, a WRITE into the buffer this side advertised,
 * or a message the peer left for this side to READ, once read. The poller delivers them ({@code on*});
 * a receiver consumes them in order, which gives the buffer back and, in time, the credits.
 */
final class MessageInbox
{
    private static final int KIND_SEND = 0;
    private static final int KIND_WRITTEN = 1;
    private static final int KIND_READ = 2;

    private final ProtectionDomain pd;
    private final RequestPipeline pipeline;
    private final NanoClock nanoClock;
    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final MessageChannel channel;
    private final DriverConnection connection;
    private final LongQueue inbox;
    private final LongQueue writtenEnds;
    private final ArrayDeque<ReadIn> readIns = new ArrayDeque<>();
    private final Object recvLock = new Object();
    private long receivePosition;
    private long freedPosition;
    private int creditsToReturn;
    private long bytesToReturn;
    /**
     * The credits the peer holds of this side: not yet used, in flight, waiting here or to be returned. Granted by
     * the driver's {@link ReceiveCredits} at open; changed by the consumer alone (under the receive lock).
     */
    private volatile int held;
    private boolean creditsReleased;
    private ZeroCopy outstandingZeroCopy;

    /** A message the peer left for this side to READ, once read. */
    private record ReadIn(MemorySegment data, int length, Runnable release)
    {
    }

    MessageInbox(
        final ProtectionDomain pd,
        final RequestPipeline pipeline,
        final ControlMessages control,
        final ReceiveBuffers receiveBuffers,
        final MessageChannel channel,
        final DriverConnection connection,
        final int credits)
    {
        this.pd = pd;
        this.pipeline = pipeline;
        this.nanoClock = pipeline.nanoClock();
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.channel = channel;
        this.connection = connection;
        this.inbox = new LongQueue(credits * 2 + 8);
        this.writtenEnds = new LongQueue(credits * 2 + 8);
        this.held = receiveBuffers.credits().open();
    }

    /** @return the credits the peer holds now: before any message was consumed, those granted at connect. */
    int heldCredits()
    {
        // no lock: a receiver waits for messages holding it, and the poller asks this for an ACCEPT
        return held;
    }

    /** @return true when no message waits. */
    boolean isEmpty()
    {
        return inbox.isEmpty();
    }

    private static long entry(final int kind, final long a, final int length)
    {
        return ((long)kind << 62) | ((a & 0x3fff_ffffL) << 32) | (length & 0xffff_ffffL);
    }

    void onData(final int buffer, final int length)
    {
        channel.used();
        if (!inbox.offer(entry(KIND_SEND, buffer, length)))
        {
            // more messages than the credits granted: the peer broke the protocol; the message is dropped
            receiveBuffers.repost(buffer);
        }
    }

    void onWritten(final int length)
    {
        final MemoryRegion advert = channel.advert();
        if (advert == null)
        {
            // a WRITE_WITH_IMM with no buffer advertised (a zero-length one needs no rkey): the peer broke the protocol
            channel.markPeerClosed();
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
            channel.markPeerClosed();
        }
    }

    /**
     * The peer left a large message for this side to READ: fetch it into fresh registered memory,
     * then queue it and tell the peer its buffer is free.
     */
    void startReadIn(final long address, final int rkey, final int token, final int length)
    {
        final RequestSlot slot = pipeline.tryAcquireSlot();
        if (slot == null || length < 0)
        {
            if (slot != null)
            {
                pipeline.releaseSlot(slot);
            }
            channel.markPeerClosed();
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
            channel.markPeerClosed();
            return;
        }
        synchronized (readIns)
        {
            readIns.add(new ReadIn(destination.segment(), slot.length, destination::deregister));
        }
        if (!inbox.offer(entry(KIND_READ, 0, slot.length)))
        {
            channel.markPeerClosed();
        }
        final RequestSlot done = channel.isPeerClosed() ? null :
            control.controlSlot(slot.route, channel.peerVqpn(), TYPE_READ_DONE, connection.vqpn(), 0, READ_LENGTH);
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
                throw new RaasException(
                    String.format("release the previous message of vQPN 0x%x first", connection.vqpn()));
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
        final long deadline = nanoClock.nanoTime() + timeout.toNanos();
        int spins = 0;
        while (inbox.isEmpty())
        {
            if (channel.isClosedHere())
            {
                throw new RaasException(String.format("connection vQPN 0x%x is closed", connection.vqpn()));
            }
            if (channel.isPeerClosed())
            {
                throw new RaasException(
                    String.format("node %d closed connection vQPN 0x%x", connection.nodeId(), connection.vqpn()));
            }
            if (pipeline.poll() == 0)
            {
                // a peer's message may be milliseconds away (a node answers once a key is on disk): park rather than
                // take a core from the processes it waits on
                Waits.idle(++spins);
                if ((Waits.parking(spins) || (spins & 255) == 0) && nanoClock.nanoTime() > deadline)
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
            case KIND_WRITTEN -> channel.advert().segment().asSlice(at, length);
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
        // the credit goes back, stays with the driver (an overdraft being repaid) or brings one more with it
        final int back = receiveBuffers.credits().onConsumed(held);
        held += back - 1;
        creditsToReturn += back;
        final MemoryRegion advert = channel.advert();
        if ((creditsToReturn > 0 || bytesToReturn > 0) && !channel.isPeerClosed() &&
            (creditsToReturn >= Math.max(1, held / 2) ||
            (advert != null && bytesToReturn >= advert.length() / 4) || inbox.isEmpty()))
        {
            control.sendSimple(connection.route(), channel.peerVqpn(), TYPE_CREDIT, connection.vqpn(),
                creditsToReturn, (int)bytesToReturn);
            creditsToReturn = 0;
            bytesToReturn = 0;
        }
    }

    /**
     * The connection closed: the messages no one will receive give their receive buffers back, and the credits it
     * held go back to the driver.
     */
    void drain()
    {
        synchronized (recvLock)
        {
            if (!creditsReleased)
            {
                creditsReleased = true;
                receiveBuffers.credits().close(held);
            }
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
    }
}

package io.dkv.raas.stream;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasConfiguration;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One end of a byte stream over RaaS (UNH EXS's {@code SOCK_STREAM}): what one end writes, the other reads,
 * in order, in pieces of any size. Each transfer goes direct, by one-sided WRITE into a buffer the reader
 * advertised (a receive into memory from {@link #allocateReceiveBuffer}), or indirect, by WRITE (or inside
 * the message, when small) into the reader's stream buffer, whence the reader copies it: the protocol's
 * sequence and phase numbers ({@link StreamSender}, {@link StreamReceiver}) choose per transfer, so a reader
 * that waits with buffers posted gets bytes without a copy and a sender ahead of its reader never waits
 * for an advertisement.
 *
 * <p>One thread may write while another reads; writes are serialised, and so are reads. A thread waiting
 * here consumes what the peer sent (which returns the peer its message credits), and never waits inside a
 * send: two ends that both write keep moving. The stream needs an embedded driver (its stream buffer
 * is memory of this process the peer writes into).
 *
 * <p>One class, past the usual size: the reading and the writing half share the protocol's state, its lock
 * and the duty of consuming the peer's messages whichever half waits; the protocol itself lives in
 * {@link StreamSender} and {@link StreamReceiver}.
 */
public final class RaasStream implements AutoCloseable
{
    private static final int RECEIVE_BUFFER_BYTES = Integer.getInteger(
        RaasConfiguration.RECEIVE_BUFFER_BYTES_PROP_NAME, RaasConfiguration.RECEIVE_BUFFER_BYTES_DEFAULT);
    // room for the connection's own header within a receive buffer
    private static final int MESSAGE_BYTES = RECEIVE_BUFFER_BYTES - 64;

    private final Raas raas;
    private final Connection connection;
    private final StreamContext context;
    private final NanoClock nanoClock;
    private final RemoteRegion ringRegion;
    private final MemorySegment ring;
    private final StreamReceiver receiver;
    private StreamSender sender;
    private RemoteRegion peerRing;
    private final StreamCounters counters = new StreamCounters();
    private final ReentrantLock stateLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final ReentrantLock readLock = new ReentrantLock();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment in;
    private final MemorySegment dataOut;
    private final MemorySegment probe;
    private final ControlQueue control;
    private final MemorySegment[] postedSegment;
    private final long[] postedOffset;
    private final int[] postedRegion;
    private final List<RemoteRegion> bufferRegions = new ArrayList<>();
    private final List<MemorySegment> bufferSegments = new ArrayList<>();
    private final IdleStrategy readIdle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    private final IdleStrategy writeIdle = new BackoffIdleStrategy(64, 16, 1_000, 200_000);
    private RemoteRegion lastTrusted;
    private long lastHeardNanos;
    private boolean outputShut;
    private RaasException peerClosed;
    private volatile boolean closed;
    private volatile RaasException broken;

    private RaasStream(final Raas raas, final Connection connection, final StreamContext context)
    {
        this.raas = raas;
        this.connection = connection;
        // a context given no clock runs its streams on their driver's: one setting governs the process
        if (context.nanoClock() == null)
        {
            context.nanoClock(raas.nanoClock());
        }
        this.context = context.conclude(MESSAGE_BYTES);
        this.nanoClock = context.nanoClock();
        this.lastHeardNanos = nanoClock.nanoTime();
        this.ringRegion = raas.malloc(raas.self().id(), context.bufferBytes(), "", Access.REMOTE_WRITE |
            Access.REMOTE_READ);
        try
        {
            this.ring = raas.localMemory(ringRegion);
        }
        catch (final RaasException ex)
        {
            raas.free(ringRegion);
            throw new RaasException("a stream needs an embedded driver: " + ex.getMessage(), ex);
        }
        this.receiver = new StreamReceiver(context.bufferBytes(), context.maxPosted());
        this.in = arena.allocate(StreamMessages.HEADER_LENGTH + context.inlineBytes(), 8);
        this.dataOut = arena.allocate(StreamMessages.HEADER_LENGTH + context.inlineBytes(), 8);
        this.probe = arena.allocate(8, 8);
        this.control = new ControlQueue(arena, context.maxPosted() * 2 + 8);
        this.postedSegment = new MemorySegment[context.maxPosted()];
        this.postedOffset = new long[context.maxPosted()];
        this.postedRegion = new int[context.maxPosted()];
    }

    /**
     * Connect to a stream listener ({@link StreamListener}) of a node's service with the default
     * {@link StreamContext}: bytes go zero-copy into buffers the reader advertised, or through its stream buffer,
     * chosen per transfer.
     *
     * @throws RaasException when the node cannot be reached, has no such listener, or does not answer in time.
     */
    public static RaasStream connect(final Raas raas, final long nodeId, final int service)
    {
        return connect(raas, nodeId, service, new StreamContext());
    }

    /**
     * Connect to a stream listener ({@link StreamListener}) of a node's service.
     *
     * @throws RaasException when the node cannot be reached, has no such listener, or does not answer in time.
     */
    public static RaasStream connect(
        final Raas raas, final long nodeId, final int service, final StreamContext context)
    {
        final Connection connection = raas.connect(nodeId, service, Flags.ADAPTIVE, (token, status, value) -> {});
        return open(raas, connection, context);
    }

    static RaasStream open(final Raas raas, final Connection connection, final StreamContext context)
    {
        final RaasStream stream;
        try
        {
            stream = new RaasStream(raas, connection, context);
        }
        catch (final RuntimeException ex)
        {
            connection.close();
            throw ex;
        }
        try
        {
            stream.hello();
        }
        catch (final RuntimeException ex)
        {
            stream.close();
            throw ex;
        }
        return stream;
    }

    private void hello()
    {
        stateLock.lock();
        try
        {
            control.add(StreamMessages.HELLO, (byte)0, 0, 0, 0, 0, 0)
                .region(ringRegion.address(), ringRegion.length(), ringRegion.nodeEpoch(), ringRegion.rkey());
        }
        finally
        {
            stateLock.unlock();
        }
        final long deadline = nanoClock.nanoTime() + Math.max(5_000L, context.probeMs() * 5L) * 1_000_000L;
        while (true)
        {
            final int work = progress();
            if (peerRing != null && control.isEmpty())
            {
                return;
            }
            requireIntact();
            if (nanoClock.nanoTime() > deadline)
            {
                throw new RaasException("stream to node " + connection.nodeId() + " (vQPN 0x" +
                    Integer.toHexString(connection.vqpn()) + "): the peer described no stream buffer in time");
            }
            readIdle.idle(work);
        }
    }

    /**
     * Memory the peer may write into: receives into it can be advertised, and their bytes arrive without a copy.
     * Freed with the stream.
     */
    public MemorySegment allocateReceiveBuffer(final int bytes)
    {
        final RemoteRegion region = raas.malloc(raas.self().id(), bytes, "", Access.REMOTE_WRITE);
        final MemorySegment memory = raas.localMemory(region);
        stateLock.lock();
        try
        {
            bufferRegions.add(region);
            bufferSegments.add(memory);
        }
        finally
        {
            stateLock.unlock();
        }
        return memory;
    }

    // ---------------------------------------------------------------------------------------------
    // reading

    /**
     * Read at least one and at most {@code length} bytes, waiting until some arrive.
     *
     * @return bytes read, or -1 once the peer ended its output and every byte it sent was read.
     * @throws RaasException when receives are posted ({@link #postReceive}) and not awaited, or the stream broke.
     */
    public int read(final MemorySegment dst, final long offset, final int length)
    {
        if (length == 0)
        {
            return 0;
        }
        readLock.lock();
        try
        {
            stateLock.lock();
            try
            {
                if (receiver.head() >= 0)
                {
                    throw new RaasException("read while receives are posted: await them first");
                }
                post(dst, offset, length);
            }
            finally
            {
                stateLock.unlock();
            }
            return awaitReceive();
        }
        finally
        {
            readLock.unlock();
        }
    }

    /**
     * Post a receive of up to {@code length} bytes into {@code dst} without waiting: several posted receives
     * are advertised together (when in memory from {@link #allocateReceiveBuffer}), so the sender can fill
     * them back to back. They complete in the order posted ({@link #awaitReceive}).
     */
    public void postReceive(final MemorySegment dst, final long offset, final int length)
    {
        stateLock.lock();
        try
        {
            post(dst, offset, length);
        }
        finally
        {
            stateLock.unlock();
        }
        // advertised now, not when the reader next waits: a writer about to write finds the buffer there
        progress();
    }

    private void post(final MemorySegment dst, final long offset, final int length)
    {
        requireIntact();
        if (length <= 0 || offset < 0 || offset > dst.byteSize() - length)
        {
            throw new IllegalArgumentException("receive of " + length + " bytes at offset " + offset + " of a " +
                dst.byteSize() + "-byte buffer");
        }
        final int region = regionOf(dst, offset, length);
        final int slot = receiver.post(length, region >= 0);
        postedSegment[slot] = dst;
        postedOffset[slot] = offset;
        postedRegion[slot] = region;
    }

    private int regionOf(final MemorySegment dst, final long offset, final int length)
    {
        if (!dst.isNative())
        {
            return -1;
        }
        final long start = dst.address() + offset;
        for (int i = 0; i < bufferSegments.size(); i++)
        {
            final MemorySegment buffer = bufferSegments.get(i);
            if (start >= buffer.address() && start + length <= buffer.address() + buffer.byteSize())
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Wait for the oldest posted receive.
     *
     * @return its bytes, or -1 at the end of the stream.
     */
    public int awaitReceive()
    {
        while (true)
        {
            final int work = progress();
            stateLock.lock();
            try
            {
                final int slot = receiver.head();
                if (slot < 0)
                {
                    throw new RaasException("no receive is posted");
                }
                final int result = receiver.result(slot);
                if (result != StreamReceiver.PENDING)
                {
                    receiver.take();
                    postedSegment[slot] = null;
                    return result;
                }
            }
            finally
            {
                stateLock.unlock();
            }
            requireIntact();
            idle(readIdle, work);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // writing

    /** Write every one of {@code length} bytes, waiting for room at the reader while there is none. */
    public void write(final MemorySegment src, final long offset, final int length)
    {
        if (length < 0 || offset < 0 || offset > src.byteSize() - length)
        {
            throw new IllegalArgumentException("write of " + length + " bytes at offset " + offset + " of a " +
                src.byteSize() + "-byte buffer");
        }
        writeLock.lock();
        try
        {
            if (outputShut)
            {
                throw new RaasException("write of " + length + " bytes after this end's output was shut");
            }
            if (peerClosed != null)
            {
                throw new RaasException("write of " + length + " bytes to a stream the peer closed", peerClosed);
            }
            long at = offset;
            int remaining = length;
            while (remaining > 0)
            {
                final int sent = transfer(src, at, remaining);
                if (sent == 0)
                {
                    requireIntact();
                    idle(writeIdle, 0);
                    continue;
                }
                writeIdle.reset();
                at += sent;
                remaining -= sent;
            }
        }
        finally
        {
            writeLock.unlock();
        }
    }

    /** @return bytes sent by one transfer, 0 when none could go. */
    private int transfer(final MemorySegment src, final long at, final int remaining)
    {
        progress();
        final int kind;
        final int bytes;
        final int phase;
        final long sequence;
        final long targetOffset;
        final int advertId;
        RemoteRegion target = null;
        stateLock.lock();
        try
        {
            requireIntact();
            kind = sender.plan(remaining);
            counters.staleAdverts = sender.staleAdverts();
            if (kind == StreamSender.WAIT)
            {
                return 0;
            }
            bytes = sender.planLength();
            phase = sender.planPhase();
            sequence = sender.planSequence();
            if (kind == StreamSender.DIRECT)
            {
                targetOffset = sender.planAdvertOffset();
                advertId = sender.planAdvertId();
                target = advertRegion(sender.planRegionAddress(), sender.planRegionLength(), sender.planEpoch(),
                    sender.planRkey());
            }
            else
            {
                targetOffset = sender.planRingOffset();
                advertId = 0;
            }
        }
        finally
        {
            stateLock.unlock();
        }
        final byte how;
        int messageLength = StreamMessages.HEADER_LENGTH;
        if (kind == StreamSender.DIRECT)
        {
            connection.write(target, targetOffset, src, at, bytes);
            how = StreamMessages.DIRECT;
            counters.directTransfers++;
            counters.directBytes += bytes;
        }
        else if (bytes <= context.inlineBytes())
        {
            MemorySegment.copy(src, at, dataOut, StreamMessages.HEADER_LENGTH, bytes);
            messageLength += bytes;
            how = StreamMessages.INLINE;
            counters.inlineTransfers++;
        }
        else
        {
            connection.write(peerRing, targetOffset, src, at, bytes);
            how = StreamMessages.INDIRECT;
        }
        if (kind == StreamSender.INDIRECT)
        {
            counters.indirectTransfers++;
            counters.indirectBytes += bytes;
        }
        StreamMessages.header(dataOut.asSlice(0, StreamMessages.HEADER_LENGTH), StreamMessages.DATA, how, phase,
            sequence, bytes, advertId, targetOffset);
        sendData(messageLength);
        return bytes;
    }

    private RemoteRegion advertRegion(final long address, final long length, final long epoch, final int rkey)
    {
        final RemoteRegion last = lastTrusted;
        if (last != null && last.address() == address && last.rkey() == rkey && last.length() == length &&
            last.nodeEpoch() == epoch)
        {
            return last;
        }
        final RemoteRegion region =
            new RemoteRegion("", connection.nodeId(), epoch, address, rkey, length, Access.REMOTE_WRITE, 1);
        raas.trust(region);
        lastTrusted = region;
        return region;
    }

    private void sendData(final int length)
    {
        while (!connection.trySend(dataOut, 0, length))
        {
            // the peer returns credits as it consumes: consume what it sent meanwhile, so that it can too
            final int work = progress();
            requireIntact();
            idle(writeIdle, work);
        }
    }

    /** End this end's output: the peer reads what was written, then the end of the stream. */
    public void shutdownOutput()
    {
        writeLock.lock();
        try
        {
            if (outputShut)
            {
                return;
            }
            outputShut = true;
            stateLock.lock();
            try
            {
                control.add(StreamMessages.FIN, (byte)0, 0, sender.sequence(), 0, 0, 0);
            }
            finally
            {
                stateLock.unlock();
            }
            while (true)
            {
                final int work = progress();
                stateLock.lock();
                try
                {
                    if (control.isEmpty())
                    {
                        return;
                    }
                }
                finally
                {
                    stateLock.unlock();
                }
                requireIntact();
                idle(writeIdle, work);
            }
        }
        finally
        {
            writeLock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // progress

    /**
     * Consume what the peer sent, copy what waits in the stream buffer into the oldest open receive,
     * advertise what may be, and send the control messages that credits allow.
     *
     * @return work done.
     */
    private int progress()
    {
        if (!stateLock.tryLock())
        {
            return 0;
        }
        try
        {
            int work = 0;
            if (broken == null && !closed)
            {
                try
                {
                    work += consumeMessages();
                    work += copyOut();
                    work += advertise();
                    work += control.flush(connection);
                }
                catch (final RaasException ex)
                {
                    broken = ex instanceof StreamProtocolException ? ex : new RaasException(
                        "stream to node " + connection.nodeId() + " broke: " + ex.getMessage(), ex);
                }
            }
            return work;
        }
        finally
        {
            stateLock.unlock();
        }
    }

    private int consumeMessages()
    {
        // delivers what arrived now rather than when the driver's own poller next wakes from its back-off
        int work = raas.poll();
        while (peerClosed == null && connection.isReadable())
        {
            final int length;
            try
            {
                length = connection.recv(in, 0, (int)in.byteSize(), Duration.ZERO);
            }
            catch (final RaasException ex)
            {
                if (!receiver.isFinished())
                {
                    throw ex;
                }
                // the peer ended its output, then closed: reads end, writes have no one to go to
                peerClosed = ex;
                return work;
            }
            onMessage(length);
            work++;
        }
        return work;
    }

    private void onMessage(final int length)
    {
        if (length < StreamMessages.HEADER_LENGTH)
        {
            throw new StreamProtocolException("a stream message of " + length + " bytes");
        }
        switch (StreamMessages.type(in))
        {
            case StreamMessages.HELLO -> onHello();
            case StreamMessages.DATA -> onData(length);
            case StreamMessages.ADVERT -> requireSender().onAdvert(StreamMessages.phase(in),
                StreamMessages.sequence(in), StreamMessages.id(in), StreamMessages.length(in),
                StreamMessages.offset(in), StreamMessages.regionAddress(in), StreamMessages.regionLength(in),
                StreamMessages.epoch(in), StreamMessages.rkey(in));
            case StreamMessages.ACK -> requireSender().onAck(StreamMessages.sequence(in));
            case StreamMessages.FIN -> receiver.onFin(StreamMessages.sequence(in));
            default -> throw new StreamProtocolException("a stream message of type " + StreamMessages.type(in));
        }
    }

    private StreamSender requireSender()
    {
        if (sender == null)
        {
            throw new StreamProtocolException("the peer sent a message before describing its stream buffer");
        }
        return sender;
    }

    private void onHello()
    {
        final long length = StreamMessages.regionLength(in);
        if (peerRing != null || length < 1 || length > Integer.MAX_VALUE)
        {
            throw new StreamProtocolException("stream buffer of " + length + " bytes described" +
                (peerRing != null ? " a second time" : ""));
        }
        final RemoteRegion region = new RemoteRegion("", connection.nodeId(), StreamMessages.epoch(in),
            StreamMessages.regionAddress(in), StreamMessages.rkey(in), length, Access.REMOTE_WRITE | Access.REMOTE_READ,
            1);
        raas.trust(region);
        sender = new StreamSender((int)length, context.maxPosted() * 2 + 2);
        peerRing = region;
    }

    private void onData(final int length)
    {
        final int bytes = StreamMessages.length(in);
        final long sequence = StreamMessages.sequence(in);
        switch (StreamMessages.kind(in))
        {
            case StreamMessages.DIRECT ->
                receiver.onDirect(StreamMessages.phase(in), sequence, StreamMessages.id(in), bytes);
            case StreamMessages.INDIRECT -> receiver.onIndirect(sequence, StreamMessages.offset(in), bytes);
            case StreamMessages.INLINE ->
            {
                if (length != StreamMessages.HEADER_LENGTH + bytes)
                {
                    throw new StreamProtocolException("inline transfer of " + bytes + " bytes in a message of " +
                        length);
                }
                final long offset = StreamMessages.offset(in);
                receiver.onIndirect(sequence, offset, bytes);
                MemorySegment.copy(in, StreamMessages.HEADER_LENGTH, ring, offset, bytes);
            }
            default -> throw new StreamProtocolException("a transfer of kind " + StreamMessages.kind(in));
        }
    }

    private int copyOut()
    {
        int work = 0;
        int bytes;
        while ((bytes = receiver.copyable()) > 0)
        {
            final int slot = receiver.open();
            final int from = receiver.ringReadOffset();
            final int first = Math.min(bytes, context.bufferBytes() - from);
            MemorySegment.copy(ring, from, postedSegment[slot], postedOffset[slot], first);
            if (first < bytes)
            {
                MemorySegment.copy(ring, 0, postedSegment[slot], postedOffset[slot] + first, bytes - first);
            }
            receiver.consumed(bytes);
            work++;
        }
        if (receiver.ackDue() && control.hasRoom())
        {
            control.add(StreamMessages.ACK, (byte)0, 0, receiver.ack(), 0, 0, 0);
        }
        return work;
    }

    private int advertise()
    {
        int work = 0;
        while (control.hasRoom() && receiver.nextAdvert())
        {
            final int slot = receiver.advertSlot();
            final RemoteRegion region = bufferRegions.get(postedRegion[slot]);
            final long offset =
                postedSegment[slot].address() + postedOffset[slot] - bufferSegments.get(postedRegion[slot]).address();
            control.add(StreamMessages.ADVERT, (byte)0, receiver.phase(), receiver.advertSequence(),
                receiver.lengthOf(slot), receiver.advertIdOf(slot), offset)
                .region(region.address(), region.length(), region.nodeEpoch(), region.rkey());
            work++;
        }
        return work;
    }

    private void idle(final IdleStrategy idle, final int work)
    {
        if (work > 0)
        {
            lastHeardNanos = nanoClock.nanoTime();
            idle.reset();
            return;
        }
        if (nanoClock.nanoTime() - lastHeardNanos > context.probeMs() * 1_000_000L)
        {
            probePeer();
        }
        idle.idle();
    }

    /** Nothing heard for a while: READ a word of the peer's stream buffer, which fails once it is gone. */
    private void probePeer()
    {
        lastHeardNanos = nanoClock.nanoTime();
        final RemoteRegion target = peerRing;
        if (target == null || broken != null)
        {
            return;
        }
        try
        {
            connection.read(target, 0, probe, 0, 8);
        }
        catch (final RaasException ex)
        {
            broken = new RaasException("stream to node " + connection.nodeId() + ": the peer stopped answering (" +
                ex.getMessage() + ")", ex);
        }
    }

    private void requireIntact()
    {
        if (closed)
        {
            throw new RaasException("stream to node " + connection.nodeId() + " is closed");
        }
        final RaasException cause = broken;
        if (cause != null)
        {
            throw cause instanceof StreamProtocolException ? cause : new RaasException(cause.getMessage(), cause);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // views and state

    /** @return this stream's reads as an {@link InputStream} (closing it closes the stream). */
    public InputStream inputStream()
    {
        return new StreamInput(this);
    }

    /** @return this stream's writes as an {@link OutputStream} (closing it shuts this end's output). */
    public OutputStream outputStream()
    {
        return new StreamOutput(this);
    }

    /** @return this stream as a channel to read from and write to (closing it closes the stream). */
    public StreamChannel channel()
    {
        return new StreamChannel(this);
    }

    /** @return the peer's advertisements this end holds and has not used, once it consumed what arrived. */
    int queuedAdverts()
    {
        progress();
        stateLock.lock();
        try
        {
            return sender == null ? 0 : sender.queuedAdverts();
        }
        finally
        {
            stateLock.unlock();
        }
    }

    public StreamCounters counters()
    {
        return counters;
    }

    /** @return the node at the other end. */
    public long peerNodeId()
    {
        return connection.nodeId();
    }

    public boolean isClosed()
    {
        return closed;
    }

    /** Shut the output (the peer reads to the end of what was written), then release the connection and buffers. */
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            if (broken == null && peerRing != null)
            {
                shutdownOutput();
            }
        }
        catch (final RaasException ex)
        {
            // the peer is gone or the stream broke: nothing more to tell it
        }
        finally
        {
            closed = true;
            stateLock.lock();
            try
            {
                connection.close();
                raas.free(ringRegion);
                bufferRegions.forEach(raas::free);
                bufferRegions.clear();
                bufferSegments.clear();
            }
            finally
            {
                stateLock.unlock();
            }
            arena.close();
        }
    }

    public String toString()
    {
        return "RaasStream[node " + connection.nodeId() + ", vQPN 0x" + Integer.toHexString(connection.vqpn()) +
            ", " + counters + "]";
    }
}

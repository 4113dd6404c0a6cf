package io.dkv.load.bench.hostile;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.tcp.TcpFrames;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * Speaks to a NIC engine as a hostile peer: raw sockets, frames built by hand, answers read and
 * counted by status. Every attack runs to a budget of frames or connections and then stops.
 */
final class TcpAttacker
{
    private static final int BATCH = 256;
    private static final int READ_LENGTH = 8;
    private static final PortAddress CLAIMED = PortAddress.parse("tcp:127.0.0.1:9");

    private final SplittableRandom random;

    TcpAttacker(final long seed)
    {
        this.random = new SplittableRandom(seed);
    }

    /** Connections that send random bytes, half of them after a valid HELLO. */
    void garbage(final Target target, final AttackTally tally, final int connections)
    {
        for (int i = 0; i < connections; i++)
        {
            try (SocketChannel channel = SocketChannel.open(target.engine().tcpSocketAddress()))
            {
                tally.connections.incrementAndGet();
                final byte[] noise = new byte[random.nextInt(1, 4096)];
                random.nextBytes(noise);
                if (i % 2 == 0)
                {
                    writeFully(channel, TcpFrames.hello(CLAIMED));
                }
                writeFully(channel, ByteBuffer.wrap(noise));
                tally.frames.incrementAndGet();
                // random bytes may read as the start of a frame the engine waits to complete: the peer gives up
                if (awaitEnd(channel, 2_000) == 0)
                {
                    tally.cutOff.incrementAndGet();
                }
            }
            catch (final IOException ex)
            {
                tally.refused.incrementAndGet();
            }
        }
    }

    /**
     * Requests of one kind on as many connections as the engine makes it use (it cuts off links that
     * misbehave), until {@code frames} are sent.
     */
    void requests(final AttackKind kind, final List<Target> targets, final AttackTally tally, final long frames)
        throws InterruptedException
    {
        long sent = 0;
        int qpn = 1;
        final ByteBuffer batch = ByteBuffer.allocate(BATCH * (REQUEST_HEADER_LENGTH + 8))
            .order(ByteOrder.LITTLE_ENDIAN);
        while (sent < frames)
        {
            final Target target = targets.get((int)(tally.connections.get() % targets.size()));
            final SocketChannel channel;
            try
            {
                channel = SocketChannel.open(target.engine().tcpSocketAddress());
            }
            catch (final IOException ex)
            {
                tally.refused.incrementAndGet();
                continue;
            }
            tally.connections.incrementAndGet();
            final AtomicLong answered = new AtomicLong();
            // platform threads: virtual ones would leave the JDK's pollers (file descriptors) behind in the figures
            final Thread reader = Thread.ofPlatform().daemon().start(() -> countResponses(channel, tally, answered));
            long sentHere = 0;
            try
            {
                writeFully(channel, TcpFrames.hello(CLAIMED));
                while (sent < frames)
                {
                    batch.clear();
                    final int count = (int)Math.min(BATCH, frames - sent);
                    for (int i = 0; i < count; i++)
                    {
                        putFrame(kind, target, batch, qpn++);
                    }
                    batch.flip();
                    writeFully(channel, batch);
                    sent += count;
                    sentHere += count;
                    tally.frames.addAndGet(count);
                }
                if (kind == AttackKind.MADE_UP_QPNS)
                {
                    // every READ is answered: wait for the answers before the link goes
                    final long deadline = System.nanoTime() + 30_000_000_000L;
                    while (answered.get() < sentHere && System.nanoTime() < deadline)
                    {
                        Thread.sleep(1);
                    }
                }
            }
            catch (final IOException cutOffMidWrite)
            {
                tally.cutOff.incrementAndGet();
            }
            finally
            {
                try
                {
                    channel.close();
                }
                catch (final IOException ignore)
                {
                    // closing anyway
                }
                reader.join(30_000);
            }
        }
    }

    private void putFrame(final AttackKind kind, final Target target, final ByteBuffer batch, final int qpn)
    {
        final int offset = batch.position();
        switch (kind)
        {
            case MADE_UP_QPNS ->
            {
                final long at = target.address() + (random.nextLong(target.length() / 8) * 8);
                dcRequest(batch, offset, Opcode.RDMA_READ, qpn, target, READ_LENGTH, at, target.rkey(), 0, 0);
                batch.position(offset + REQUEST_HEADER_LENGTH);
            }
            case UNAUTHORIZED ->
            {
                unauthorized(batch, offset, qpn, target);
            }
            case MUTATED ->
            {
                unauthorized(batch, offset, qpn, target);
                final int end = batch.position();
                for (int flips = random.nextInt(1, 3); flips > 0; flips--)
                {
                    int at = random.nextInt(REQUEST_HEADER_LENGTH);
                    while (at == REQ_OPCODE_OFFSET)
                    {
                        at = random.nextInt(REQUEST_HEADER_LENGTH);
                    }
                    batch.put(offset + at, (byte)(batch.get(offset + at) ^ (1 << random.nextInt(8))));
                }
                batch.position(end);
            }
            default -> throw new IllegalArgumentException("not a request attack: " + kind);
        }
    }

    /**
     * A WRITE (empty or of 8 bytes), an add of 0 or a swap of a word for itself: with the target's
     * own rkey when the region is read-only, else with a made-up one.
     */
    private void unauthorized(final ByteBuffer batch, final int offset, final int qpn, final Target target)
    {
        final long at = target.address() + (random.nextLong(target.length() / 8) * 8);
        final int madeUp = target.rkey() ^ (1 + random.nextInt(1 << 20));
        final int rkey = target.name().contains("read-only") ? target.rkey() : madeUp;
        switch (random.nextInt(4))
        {
            case 0 -> dcRequest(batch, offset, Opcode.RDMA_WRITE, qpn, target, 0, at, rkey, 0, 0);
            case 1 ->
            {
                dcRequest(batch, offset, Opcode.RDMA_WRITE, qpn, target, 8, at, rkey, 0, 0);
                batch.putLong(offset + REQUEST_HEADER_LENGTH, random.nextLong());
                batch.position(offset + REQUEST_HEADER_LENGTH + 8);
                return;
            }
            case 2 -> dcRequest(batch, offset, Opcode.ATOMIC_FETCH_AND_ADD, qpn, target, 8, at, rkey, 0, 0);
            default ->
            {
                final long word = random.nextLong();
                dcRequest(batch, offset, Opcode.ATOMIC_CMP_AND_SWP, qpn, target, 8, at, rkey, word, word);
            }
        }
        batch.position(offset + REQUEST_HEADER_LENGTH);
    }

    private static void dcRequest(
        final ByteBuffer batch, final int offset, final Opcode opcode, final int qpn, final Target target,
        final int length,
        final long remoteAddr, final int rkey, final long compareAdd, final long swap)
    {
        final int payload = opcode.carriesPayload() ? length : 0;
        TcpFrames.putRequest(batch, offset, REQUEST_HEADER_LENGTH + payload, opcode.code(), TRANSPORT_DC, qpn,
            target.dctNumber(),
            qpn, length, remoteAddr, rkey);
        batch.putInt(offset + REQ_IMM_OFFSET, 0).putLong(offset + REQ_COMPARE_ADD_OFFSET, compareAdd)
            .putLong(offset + REQ_SWAP_OFFSET, swap).putLong(offset + REQ_KEY_OFFSET, target.dcKey())
            .put(offset + REQ_INCARNATION_OFFSET, (byte)0);
    }

    /**
     * Open connections from one address and never say HELLO: the engine must refuse those beyond the
     * address's share and close the rest at the HELLO deadline. One selector watches them all end.
     */
    void connectionFlood(final Target target, final AttackTally tally, final int connections, final String fromAddress)
        throws IOException
    {
        final List<SocketChannel> open = new ArrayList<>();
        try (Selector selector = Selector.open())
        {
            for (int i = 0; i < connections; i++)
            {
                try
                {
                    final SocketChannel channel = SocketChannel.open();
                    open.add(channel);
                    channel.bind(new InetSocketAddress(fromAddress, 0));
                    channel.connect(target.engine().tcpSocketAddress());
                    channel.configureBlocking(false);
                    channel.register(selector, SelectionKey.OP_READ);
                    tally.connections.incrementAndGet();
                }
                catch (final IOException ex)
                {
                    tally.refused.incrementAndGet();
                }
            }
            final ByteBuffer sink = ByteBuffer.allocate(4096);
            final long deadline = System.nanoTime() + 60_000_000_000L;
            int ended = 0;
            while (ended < tally.connections.get() && System.nanoTime() < deadline)
            {
                selector.select(100);
                for (final SelectionKey key : selector.selectedKeys())
                {
                    int read;
                    try
                    {
                        read = ((SocketChannel)key.channel()).read(sink.clear());
                    }
                    catch (final IOException reset)
                    {
                        read = -1;
                    }
                    if (read < 0)
                    {
                        key.cancel();
                        ended++;
                        tally.cutOff.incrementAndGet();
                    }
                }
                selector.selectedKeys().clear();
            }
        }
        finally
        {
            for (final SocketChannel channel : open)
            {
                channel.close();
            }
        }
    }

    /** @return 0 once the engine closed the connection, 1 if it stayed open for {@code timeoutMs}. */
    private static int awaitEnd(final SocketChannel channel, final int timeoutMs)
    {
        try
        {
            channel.socket().setSoTimeout(timeoutMs);
            final InputStream in = channel.socket().getInputStream();
            final byte[] sink = new byte[4096];
            while (in.read(sink) >= 0)
            {
                Thread.onSpinWait();
            }
            return 0;
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            return 1;
        }
        catch (final IOException reset)
        {
            return 0;
        }
    }

    private static void countResponses(
        final SocketChannel channel, final AttackTally tally, final AtomicLong answered)
    {
        final byte[] header = new byte[RESPONSE_HEADER_LENGTH];
        final byte[] payload = new byte[64 * 1024];
        try
        {
            final InputStream in = channel.socket().getInputStream();
            final ByteBuffer view = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
            while (in.readNBytes(header, 0, header.length) == header.length)
            {
                long remaining = view.getInt(FRAME_LENGTH_OFFSET) - RESPONSE_HEADER_LENGTH;
                while (remaining > 0)
                {
                    final int read = in.read(payload, 0, (int)Math.min(payload.length, remaining));
                    if (read < 0)
                    {
                        return;
                    }
                    remaining -= read;
                }
                tally.responses.incrementAndGet();
                answered.incrementAndGet();
                if (view.get(TYPE_OFFSET) == TYPE_RESPONSE && view.get(RESP_STATUS_OFFSET) == 0)
                {
                    tally.successes.incrementAndGet();
                }
            }
        }
        catch (final IOException closed)
        {
            // the link went: what was read is counted
        }
    }

    private static void writeFully(final SocketChannel channel, final ByteBuffer buffer) throws IOException
    {
        while (buffer.hasRemaining())
        {
            channel.write(buffer);
        }
    }
}

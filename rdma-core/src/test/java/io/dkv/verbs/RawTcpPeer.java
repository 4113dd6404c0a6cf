package io.dkv.verbs;

import io.dkv.verbs.tcp.TcpFrames;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import static io.dkv.verbs.tcp.TcpFrameDescriptor.*;

/**
 * A peer that speaks to a tcp NIC engine byte by byte, as an attacker would: it writes whatever
 * frames a test builds, well-formed or not, and reads the engine's answers raw.
 */
final class RawTcpPeer
{
    static final Duration WAIT = Duration.ofSeconds(10);

    private RawTcpPeer()
    {
    }

    static SocketChannel connect(final PortAddress engine) throws IOException
    {
        final SocketChannel channel = SocketChannel.open(engine.tcpSocketAddress());
        channel.configureBlocking(true);
        return channel;
    }

    /** Connect from a chosen local address (any of 127.0.0.0/8 on Linux), as a second host would. */
    static SocketChannel connectFrom(final String localAddress, final PortAddress engine) throws IOException
    {
        final SocketChannel channel = SocketChannel.open();
        channel.bind(new InetSocketAddress(localAddress, 0));
        channel.connect(engine.tcpSocketAddress());
        channel.configureBlocking(true);
        return channel;
    }

    static ByteBuffer hello(final PortAddress claimed)
    {
        return TcpFrames.hello(claimed);
    }

    static ByteBuffer request(
        final int frameLength, final int opcode, final int transport, final int srcQpn, final int dst, final int psn,
        final int length, final long remoteAddr, final int rkey)
    {
        return TcpFrames.request(frameLength, opcode, transport, srcQpn, dst, psn, length, remoteAddr, rkey);
    }

    /** A READ of {@code length} bytes through a DC target, from a DC initiator numbered {@code srcQpn}. */
    static ByteBuffer dcRead(
        final int srcQpn, final DcTarget dct, final int psn, final int length, final long remoteAddr, final int rkey)
    {
        return request(REQUEST_HEADER_LENGTH, Opcode.RDMA_READ.code(), TRANSPORT_DC, srcQpn, dct.dctNumber(), psn,
            length,
            remoteAddr, rkey).putLong(REQ_KEY_OFFSET, dct.dcKey());
    }

    /** Write the frames whole; a peer cut off part-way through stops quietly. */
    static void send(final SocketChannel channel, final ByteBuffer... frames)
    {
        try
        {
            for (final ByteBuffer frame : frames)
            {
                frame.clear();
                while (frame.hasRemaining())
                {
                    channel.write(frame);
                }
            }
        }
        catch (final IOException cutOffMidWrite)
        {
            // the engine may cut the attacker off before it finished sending
        }
    }

    /**
     * Read response frames (headers and their payloads) until {@code count} have arrived or nothing
     * more comes within the wait.
     *
     * @return the responses read, each as the status byte of its header.
     */
    static byte[] readResponses(final SocketChannel channel, final int count) throws IOException
    {
        channel.socket().setSoTimeout((int)WAIT.toMillis());
        final byte[] statuses = new byte[count];
        final byte[] header = new byte[RESPONSE_HEADER_LENGTH];
        final byte[] skip = new byte[64 * 1024];
        int read = 0;
        try
        {
            final var in = channel.socket().getInputStream();
            while (read < count)
            {
                if (in.readNBytes(header, 0, header.length) < header.length)
                {
                    break;
                }
                final ByteBuffer view = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
                long payload = view.getInt(FRAME_LENGTH_OFFSET) - RESPONSE_HEADER_LENGTH;
                while (payload > 0)
                {
                    final int chunk = in.read(skip, 0, (int)Math.min(skip.length, payload));
                    if (chunk < 0)
                    {
                        break;
                    }
                    payload -= chunk;
                }
                statuses[read++] = view.get(RESP_STATUS_OFFSET);
            }
        }
        catch (final SocketTimeoutException ex)
        {
            // fewer came than asked for: the caller compares
        }
        return java.util.Arrays.copyOf(statuses, read);
    }

    /** @return true once the engine closed the connection. */
    static boolean awaitClosedByPeer(final SocketChannel channel) throws IOException
    {
        channel.socket().setSoTimeout((int)WAIT.toMillis());
        final long deadline = System.nanoTime() + WAIT.toNanos();
        try (var in = channel.socket().getInputStream())
        {
            final byte[] bytes = new byte[4096];
            while (System.nanoTime() < deadline)
            {
                if (in.read(bytes) < 0)
                {
                    return true;
                }
            }
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException reset)
        {
            return true;
        }
        return false;
    }
}

package io.dkv.raas.lite;

import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Calls an {@link RpcServer} of a node: the request goes as a message the driver sends adaptively (WRITE_WITH_IMM
 * into the buffer the server advertised on shm and for larger messages, a SEND for small ones on tcp, a READ of
 * this side's memory until the server advertised one), the reply comes back the same way.
 * One call at a time per client (calls are serialised); make one client per calling thread for more.
 *
 * <p>A call's timeout runs on the clock of the handle the client was made with ({@link Raas#nanoClock()}, its
 * context's), the clock each wait for the reply runs on too: a test that drives the driver's time, or a harness that
 * skews the process's, drives the call's deadline alike.
 */
public final class RpcClient implements AutoCloseable
{
    private final Connection connection;
    private final NanoClock nanoClock;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment request;
    private final MemorySegment reply;
    private final int maxMessageBytes;
    private long nextCorrelation = 1;

    private RpcClient(final Connection connection, final NanoClock nanoClock, final int maxMessageBytes)
    {
        this.connection = connection;
        this.nanoClock = nanoClock;
        this.maxMessageBytes = maxMessageBytes;
        this.request = arena.allocate(RpcFrames.REQUEST_HEADER + maxMessageBytes, 8);
        this.reply = arena.allocate(RpcFrames.REPLY_HEADER + maxMessageBytes, 8);
    }

    /**
     * @param maxMessageBytes the largest request and reply, as the server was started with.
     */
    public static RpcClient connect(final Raas raas, final long nodeId, final int service, final int maxMessageBytes)
    {
        return new RpcClient(raas.connect(nodeId, service, Flags.ADAPTIVE, null), raas.nanoClock(), maxMessageBytes);
    }

    public static RpcClient connect(final Raas raas, final long nodeId, final int service)
    {
        return connect(raas, nodeId, service, RpcServer.MAX_MESSAGE_BYTES_DEFAULT);
    }

    /**
     * Call the server and wait for its reply.
     *
     * @return the reply's length, copied into {@code reply} at {@code replyOffset}.
     * @throws RaasException when the request is too large, the reply does not fit {@code maxReply}, no reply comes
     *                       within the timeout, or the handler failed (with its message).
     */
    public synchronized int call(
        final MemorySegment src,
        final long offset,
        final int length,
        final MemorySegment dst,
        final long dstOffset,
        final int maxReply,
        final Duration timeout)
    {
        if (length < 0 || length > maxMessageBytes)
        {
            throw new RaasException("request of " + length + " bytes: the server takes at most " + maxMessageBytes);
        }
        final long correlation = nextCorrelation++;
        request.set(RpcFrames.LONG, RpcFrames.CORRELATION_OFFSET, correlation);
        MemorySegment.copy(src, offset, request, RpcFrames.REQUEST_HEADER, length);
        connection.send(request, 0, RpcFrames.REQUEST_HEADER + length, Flags.ADAPTIVE);
        final long deadline = nanoClock.nanoTime() + timeout.toNanos();
        while (true)
        {
            final long left = Math.max(0, deadline - nanoClock.nanoTime());
            final int got;
            try
            {
                got = connection.recv(reply, 0, (int)reply.byteSize(), Duration.ofNanos(left));
            }
            catch (final RaasException ex)
            {
                throw new RaasException("call " + correlation + " to node " + connection.nodeId() + ": " +
                    ex.getMessage(), ex);
            }
            // a reply to an earlier call that timed out is not this call's
            if (got >= RpcFrames.REPLY_HEADER && reply.get(RpcFrames.LONG, RpcFrames.CORRELATION_OFFSET) == correlation)
            {
                return answer(correlation, got, dst, dstOffset, maxReply);
            }
        }
    }

    private int answer(final long correlation, final int got, final MemorySegment dst, final long dstOffset,
        final int maxReply)
    {
        final int length = reply.get(RpcFrames.INT, RpcFrames.LENGTH_OFFSET);
        if (length < 0 || RpcFrames.REPLY_HEADER + length != got)
        {
            throw new RaasException("call " + correlation + ": a reply of " + got + " bytes says it holds " + length);
        }
        if (reply.get(RpcFrames.INT, RpcFrames.STATUS_OFFSET) != RpcFrames.OK)
        {
            final byte[] message = reply.asSlice(RpcFrames.REPLY_HEADER, length).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE);
            throw new RaasException("call " + correlation + " to node " + connection.nodeId() + " failed: " +
                new String(message, StandardCharsets.UTF_8));
        }
        if (length > maxReply)
        {
            throw new RaasException("call " + correlation + ": a reply of " + length + " bytes exceeds the " +
                maxReply + " offered");
        }
        MemorySegment.copy(reply, RpcFrames.REPLY_HEADER, dst, dstOffset, length);
        return length;
    }

    public void close()
    {
        connection.close();
        arena.close();
    }
}

package io.dkv.compute;

import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.PipelinedReads;
import io.dkv.compute.command.Session;
import io.dkv.compute.metrics.LatencyRecorder;
import io.dkv.compute.resp.RespDecoder;
import io.dkv.compute.resp.RespProtocolError;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * One client connection, after the decoder: runs its requests in order on its event loop, the runs of GETs and MGETs
 * among those read together looked up together ({@link PipelinedReads}), writes their replies together when a read is
 * done (so a pipeline goes out in one write), closes it after a protocol error or QUIT, and
 * after the partial-request deadline when a peer began a request and stopped.
 *
 * <p>Each request's duration, from its decoding to its reply's write, goes to its event loop's
 * {@link LatencyRecorder}: requests decoded from one read share a decoding time, so they are kept as runs (a time and
 * a count, a few per write) and recorded when their replies are written, a batch of GETs answered by one lookup
 * included, each from its own read.
 */
final class RespConnection extends ChannelInboundHandlerAdapter
{
    private final CommandTable table;
    private final NodeStats stats;
    /** The node's, which the decoder stamps requests with too. */
    private final NanoClock clock;
    private final RespDecoder decoder;
    private final Session session;
    private final PipelinedReads reads;
    private final long partialTimeoutNanos;
    private ByteBuf pending;
    private boolean closing;
    private ScheduledFuture<?> deadline;
    private long decodedAtArm;
    private LatencyRecorder latency;
    private long[] runDecodedNanos = new long[4];
    private int[] runRequests = new int[4];
    private int runs;

    RespConnection(final CommandTable table, final NodeStats stats, final RespDecoder decoder, final Session session,
        final long partialTimeoutMs)
    {
        this.table = table;
        this.stats = stats;
        this.clock = stats.nanoClock();
        this.decoder = decoder;
        this.session = session;
        this.reads = new PipelinedReads(table);
        this.partialTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(partialTimeoutMs);
    }

    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        latency = stats.latency().recorderFor(ctx.channel().eventLoop());
    }

    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        if (closing)
        {
            return;
        }
        if (pending == null)
        {
            pending = ctx.alloc().ioBuffer();
        }
        if (msg instanceof byte[][] args)
        {
            decoded(decoder.decodedAtNanos());
            if (reads.offer(session, args, pending))
            {
                return;
            }
            reads.run(session, pending);
            table.execute(session, args, pending);
            closing = session.closeAfterReply();
        }
        else if (msg instanceof RespProtocolError error)
        {
            reads.run(session, pending);
            stats.protocolError();
            RespReplies.error(pending, error.message());
            closing = true;
        }
    }

    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        if (pending != null)
        {
            reads.run(session, pending);
        }
        flush(ctx);
        if (!closing)
        {
            watchPartial(ctx);
        }
    }

    private void flush(final ChannelHandlerContext ctx)
    {
        final ByteBuf out = pending;
        pending = null;
        if (runs > 0)
        {
            written(clock.nanoTime());
        }
        if (out != null && out.isReadable())
        {
            ctx.writeAndFlush(out)
                .addListener(closing ? ChannelFutureListener.CLOSE : ChannelFutureListener.CLOSE_ON_FAILURE);
        }
        else
        {
            if (out != null)
            {
                out.release();
            }
            if (closing)
            {
                ctx.close();
            }
        }
    }

    /** A request decoded at {@code nanos}: one more of the last run, or the first of a new one. */
    private void decoded(final long nanos)
    {
        if (runs > 0 && runDecodedNanos[runs - 1] == nanos)
        {
            runRequests[runs - 1]++;
            return;
        }
        if (runs == runDecodedNanos.length)
        {
            // a few reads between two writes: the arrays grow rarely, to the most a connection has seen
            runDecodedNanos = Arrays.copyOf(runDecodedNanos, runs * 2);
            runRequests = Arrays.copyOf(runRequests, runs * 2);
        }
        runDecodedNanos[runs] = nanos;
        runRequests[runs] = 1;
        runs++;
    }

    /** The replies of the requests held are written now. */
    private void written(final long nanos)
    {
        for (int i = 0; i < runs; i++)
        {
            latency.record(runDecodedNanos[i], runRequests[i], nanos);
        }
        runs = 0;
    }

    /** A request begun and not finished arms the deadline; one that completes (or none begun) disarms it. */
    private void watchPartial(final ChannelHandlerContext ctx)
    {
        if (!decoder.partial())
        {
            if (deadline != null)
            {
                deadline.cancel(false);
                deadline = null;
            }
            return;
        }
        if (deadline == null)
        {
            decodedAtArm = decoder.commandsDecoded();
            deadline = ctx.executor().schedule(() -> expire(ctx), partialTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** A peer that is still sending requests gets a new deadline for the one under way; a stalled one is closed. */
    private void expire(final ChannelHandlerContext ctx)
    {
        deadline = null;
        if (!decoder.partial())
        {
            return;
        }
        if (decoder.commandsDecoded() != decodedAtArm)
        {
            watchPartial(ctx);
            return;
        }
        closing = true;
        ctx.close();
    }

    public void channelInactive(final ChannelHandlerContext ctx)
    {
        if (deadline != null)
        {
            deadline.cancel(false);
        }
        if (pending != null)
        {
            pending.release();
            pending = null;
        }
        runs = 0;
        ctx.fireChannelInactive();
    }

    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        // a reset by the peer or a failed write: the connection is gone, the node is not
        ctx.close();
    }
}

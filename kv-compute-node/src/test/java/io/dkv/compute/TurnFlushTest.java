package io.dkv.compute;

import io.dkv.compute.command.ClusterView;
import io.dkv.compute.command.CommandEnvironment;
import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.Session;
import io.dkv.compute.resp.RespDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Under appendfsync everysec an event loop holds its writes' PERSISTs and sends them at the end of its turn, one
 * message per memory node for every connection it served: no reply leaves before the PERSISTs of the writes it
 * answers were sent, and a loop that holds none writes its replies at once. The loop's PERSISTs are simulated here
 * (held or not, and the send recorded with what had left the connection by then).
 */
class TurnFlushTest
{
    private static TestStore store;
    private boolean holding;
    private final List<Integer> repliesOutWhenSent = new ArrayList<>();

    @BeforeAll
    static void startStore()
    {
        store = new TestStore(new ComputeNodeContext());
    }

    @AfterAll
    static void stopStore()
    {
        CloseHelper.close(store);
    }

    @Test
    void repliesOfATurnThatHoldsPersistsLeaveOnlyAfterTheyWereSent()
    {
        final EmbeddedChannel channel = connection();
        final TurnFlush flush = flushOf(channel);
        holding = true;
        channel.pipeline().addFirst(new ChannelInboundHandlerAdapter()
        {
            public void channelReadComplete(final ChannelHandlerContext ctx)
            {
                ctx.fireChannelReadComplete();
                // the connection ran the requests and wrote their replies; the turn has not ended
                assertNull(channel.readOutbound(), "no reply leaves before the turn's PERSISTs were sent");
            }
        });
        channel.writeInbound(RespWire.requests("SET", "t-a", "1", "|", "SET", "t-b", "2", "|", "GET", "t-a"));
        assertEquals(List.of(0), repliesOutWhenSent, "sent once, at the turn's end, before any reply left");
        assertEquals("+OK\r\n+OK\r\n$1\r\n1\r\n", RespWire.replies(channel));
        assertEquals(1, flush.turns());
        assertEquals(1, flush.repliesHeld());
    }

    @Test
    void aLoopThatHoldsNoPersistsWritesItsRepliesAtOnce()
    {
        final EmbeddedChannel channel = connection();
        final TurnFlush flush = flushOf(channel);
        holding = false;
        channel.pipeline().addFirst(new ChannelInboundHandlerAdapter()
        {
            public void channelReadComplete(final ChannelHandlerContext ctx)
            {
                ctx.fireChannelReadComplete();
                final ByteBuf out = channel.readOutbound();
                assertEquals("$-1\r\n", out.toString(StandardCharsets.UTF_8), "flushed within the turn");
                out.release();
            }
        });
        channel.writeInbound(RespWire.requests("GET", "t-none"));
        assertEquals(List.of(), repliesOutWhenSent);
        assertEquals(0, flush.turns());
    }

    @Test
    void theRepliesOfEveryConnectionATurnServedGoAfterOneSend()
    {
        final EmbeddedChannel a = new EmbeddedChannel();
        final EmbeddedChannel b = new EmbeddedChannel();
        final int[] sends = new int[1];
        final TurnFlush flush = new TurnFlush(() -> true, () ->
        {
            sends[0]++;
            assertNull(a.readOutbound());
            assertNull(b.readOutbound());
        });
        a.write(Unpooled.copiedBuffer("+OK\r\n", StandardCharsets.UTF_8));
        flush.flushAtTurnEnd(contextOf(a));
        b.write(Unpooled.copiedBuffer("+OK\r\n", StandardCharsets.UTF_8));
        flush.flushAtTurnEnd(contextOf(b));
        b.runPendingTasks();
        assertEquals(0, sends[0], "the end of the turn runs on the loop that armed it");
        a.runPendingTasks();
        assertEquals(1, sends[0], "one send for both connections");
        assertEquals("+OK\r\n", RespWire.replies(a));
        assertEquals("+OK\r\n", RespWire.replies(b));
        assertEquals(2, flush.repliesHeld());
        assertEquals(1, flush.turns());
    }

    private EmbeddedChannel connection()
    {
        final NodeStats stats = new NodeStats(new CachedEpochClock(), new CachedNanoClock());
        final CommandTable table = new CommandTable(new CommandEnvironment(store.client(), null, stats, 0, 100,
            1 << 20, 0, ClusterView.alone(new ClusterView.Member(ClusterView.Member.id(1), "127.0.0.1", 0))));
        final RespDecoder decoder = new RespDecoder(1024, 1 << 20, 1 << 24, true, new CachedNanoClock());
        return new EmbeddedChannel(decoder,
            new RespConnection(table, stats, decoder, new Session(1, true, () -> { }), 10_000));
    }

    private TurnFlush flushOf(final EmbeddedChannel channel)
    {
        final TurnFlush flush = new TurnFlush(() -> holding, () ->
        {
            int out = 0;
            for (final Object ignored : channel.outboundMessages())
            {
                out++;
            }
            repliesOutWhenSent.add(out);
            holding = false;
        });
        channel.pipeline().get(RespConnection.class).turnFlush(flush);
        return flush;
    }

    private static ChannelHandlerContext contextOf(final EmbeddedChannel channel)
    {
        channel.pipeline().addLast("probe", new ChannelInboundHandlerAdapter());
        return channel.pipeline().context("probe");
    }
}

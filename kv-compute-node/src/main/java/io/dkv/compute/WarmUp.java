package io.dkv.compute;

import io.dkv.compute.command.CommandTable;
import io.dkv.compute.command.NodeStats;
import io.dkv.compute.command.Session;
import io.dkv.compute.resp.RespDecoder;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Requests a new node runs through its own RESP path on each event loop before it accepts a client: the decoder, the
 * commands, the pipelined reads and the store's read, write and compare-and-set, on the loop's own client session.
 * Without it the first requests of a new node are its slowest by far: measured under load on 2 cores, a node's first
 * request on a loop took 260 to 500 ms (classes linked, its session's queue pairs made, code run for the first time),
 * and a client that lands on it during a scale-out waits that long. It writes and deletes one key of its own per loop
 * ({@code dkv:compute:warmup:<node id>:<loop>}); its commands count in a statistics object of their own, not the
 * node's.
 */
final class WarmUp
{
    private static final String KEY_PREFIX = "dkv:compute:warmup:";

    private WarmUp()
    {
    }

    /**
     * Run on the event loop's thread, so that its client session is the one this loop's clients will use.
     *
     * @param table  commands as the node serves them, over a statistics object that is not the node's.
     * @param owner  the node's id (or, without one, its port), for its key.
     * @param loop   the loop's index, for its key.
     * @param rounds how many times the requests run.
     */
    static void run(final CommandTable table, final NodeStats stats, final String owner, final int loop,
        final int rounds)
    {
        final RespDecoder decoder = new RespDecoder(16, 1 << 16, 1 << 20, true, stats.nanoClock());
        final Session session = new Session(0, true, () -> decoder.authenticated(true));
        final EmbeddedChannel channel = new EmbeddedChannel(decoder, new RespConnection(table, stats, decoder, session,
            60_000));
        try
        {
            final String key = KEY_PREFIX + owner + ":" + loop;
            final String counter = key + ":n";
            final byte[] round = requests(new String[][]{
                {"PING"},
                {"SET", key, "warm"},
                {"GET", key},
                {"GET", key},
                {"MGET", key, counter},
                {"SET", key, "warmer", "XX", "GET"},
                {"INCR", counter},
                {"EXISTS", key, counter},
                {"DEL", key, counter}});
            for (int i = 0; i < rounds; i++)
            {
                channel.writeInbound(Unpooled.wrappedBuffer(round));
                releaseReplies(channel);
            }
        }
        finally
        {
            channel.finishAndReleaseAll();
        }
    }

    private static void releaseReplies(final EmbeddedChannel channel)
    {
        Object reply;
        while ((reply = channel.readOutbound()) != null)
        {
            ReferenceCountUtil.release(reply);
        }
    }

    private static byte[] requests(final String[][] commands)
    {
        final StringBuilder text = new StringBuilder();
        for (final String[] command : commands)
        {
            text.append('*').append(command.length).append("\r\n");
            for (final String arg : command)
            {
                text.append('$').append(arg.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(arg)
                    .append("\r\n");
            }
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }
}

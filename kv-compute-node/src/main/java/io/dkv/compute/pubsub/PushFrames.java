package io.dkv.compute.pubsub;

import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Pub/sub's replies and messages as redis 7 writes them: an array in RESP2, a push ({@code >}) in RESP3, for the
 * messages ({@code message}, {@code pmessage}, {@code smessage}) and for each (un)subscription's confirmation.
 */
public final class PushFrames
{
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SMESSAGE = "smessage".getBytes(StandardCharsets.US_ASCII);

    private PushFrames()
    {
    }

    /** A message published to a channel (or a shard channel) a connection subscribes to. */
    public static void message(final ByteBuf out, final boolean shard, final byte[] channel, final byte[] message,
        final int protocol)
    {
        RespReplies.pushHeader(out, 3, protocol);
        RespReplies.bulk(out, shard ? SMESSAGE : MESSAGE);
        RespReplies.bulk(out, channel);
        RespReplies.bulk(out, message);
    }

    /** A message published to a channel that a pattern a connection subscribes to matches. */
    public static void patternMessage(final ByteBuf out, final byte[] pattern, final byte[] channel,
        final byte[] message, final int protocol)
    {
        RespReplies.pushHeader(out, 4, protocol);
        RespReplies.bulk(out, PMESSAGE);
        RespReplies.bulk(out, pattern);
        RespReplies.bulk(out, channel);
        RespReplies.bulk(out, message);
    }

    /**
     * A subscription's confirmation: {@code subscribe}, {@code unsubscribe}, {@code psubscribe} ... with the topic
     * (null: none, as an UNSUBSCRIBE without subscriptions answers) and the connection's count after it.
     */
    public static void confirmation(final ByteBuf out, final String what, final byte[] topic, final int count,
        final int protocol)
    {
        RespReplies.pushHeader(out, 3, protocol);
        RespReplies.bulk(out, what);
        RespReplies.bulkOrNull(out, topic, protocol);
        RespReplies.integer(out, count);
    }
}

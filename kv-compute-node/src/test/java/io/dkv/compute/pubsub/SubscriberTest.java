package io.dkv.compute.pubsub;

import io.dkv.compute.limits.ClientLimits;
import io.dkv.compute.limits.OutputBufferWatch;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A subscriber whose messages are held (a SUBSCRIBE telling its peers on another thread) writes none to its
 * connection until released; released, they follow what the connection wrote before them (the confirmations), in the
 * order they came, and later ones go to the connection as before. Held ones still count against the output limit,
 * and a connection that closes drops them.
 */
final class SubscriberTest
{
    private static ByteBuf text(final String message)
    {
        return Unpooled.copiedBuffer(message, StandardCharsets.US_ASCII);
    }

    private static String read(final ByteBuf buffer)
    {
        final String text = buffer.toString(StandardCharsets.US_ASCII);
        buffer.release();
        return text;
    }

    @Test
    void heldMessagesFollowTheConfirmationsInOrderAndLaterOnesGoStraightOut()
    {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final Subscriber subscriber = new Subscriber(1, channel, null);
        subscriber.hold();
        subscriber.deliver(text("first"));
        subscriber.deliver(text("second"));
        assertNull(channel.readOutbound(), "nothing written while held");

        final ByteBuf out = Unpooled.buffer();
        out.writeCharSequence("confirmation,", StandardCharsets.US_ASCII);
        subscriber.release(out);
        assertEquals("confirmation,firstsecond", read(out));

        subscriber.deliver(text("third"));
        assertEquals("third", read(channel.readOutbound()));
        channel.finishAndReleaseAll();
    }

    @Test
    void heldMessagesCountAgainstTheLimitAndAClosedConnectionDropsThem()
    {
        final EmbeddedChannel channel = new EmbeddedChannel();
        final int[] closedAtLimit = new int[1];
        final ClientLimits limits = ClientLimits.unlimited();
        final List<Runnable> changes = new ArrayList<>();
        assertNull(limits.parse(ClientLimits.OUTPUT_BUFFER_LIMIT, "pubsub 10 0 0".getBytes(StandardCharsets.US_ASCII),
            changes));
        changes.forEach(Runnable::run);
        final OutputBufferWatch watch = new OutputBufferWatch(limits, SystemNanoClock.INSTANCE, channel.eventLoop(),
            () -> 0, () ->
            {
                closedAtLimit[0]++;
                channel.close();
            }, () ->
            {
            });
        watch.subscribed(true);
        final Subscriber subscriber = new Subscriber(2, channel, watch);
        subscriber.hold();
        final ByteBuf kept = text("12345678");
        subscriber.deliver(kept);
        subscriber.deliver(text("over"));
        assertEquals(1, closedAtLimit[0], "8 held and 4 more reach 10 bytes");
        assertFalse(channel.isOpen());
        assertEquals(1, kept.refCnt(), "still held");
        subscriber.dropHeld();
        assertEquals(0, kept.refCnt(), "dropped with the connection");

        final ByteBuf out = Unpooled.buffer();
        subscriber.release(out);
        assertTrue(out.readableBytes() == 0, "nothing left to release");
        out.release();
    }
}

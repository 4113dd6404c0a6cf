package io.dkv.compute.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bulk longer than the decoder holds goes to its sink as its bytes arrive, never held whole: the request becomes a
 * {@link LongRequest} with what the sink made at the bulk's index, the decoder's progress moves with the bytes (so a
 * long upload is no stalled request), and a connection gone halfway has the sink abandon the bulk.
 */
class RespDecoderLongBulkTest
{
    private static final int HELD = 1024;

    /** A sink that keeps what it was given, for the test to look at. */
    private static final class Recording implements LongBulkSink
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long announced = -1;
        int abandoned;
        int abandonedFinished;

        public void begin(final long length)
        {
            announced = length;
            bytes.reset();
        }

        public void write(final ByteBuf in, final int length)
        {
            final byte[] chunk = new byte[length];
            in.readBytes(chunk);
            bytes.writeBytes(chunk);
        }

        public Object finish()
        {
            return "staged:" + bytes.size();
        }

        public void abandon()
        {
            abandoned++;
        }

        public void abandon(final Object staged)
        {
            abandonedFinished++;
        }
    }

    @Test
    void aLongBulkGoesToTheSinkAsItArrivesAndItsRequestCarriesWhatTheSinkMade()
    {
        final Recording sink = new Recording();
        final RespDecoder decoder = new RespDecoder(16, HELD, 1 << 20, true, SystemNanoClock.INSTANCE, sink);
        final EmbeddedChannel channel = new EmbeddedChannel(decoder);
        final byte[] value = "v".repeat(5_000).getBytes(StandardCharsets.US_ASCII);
        channel.writeInbound(ascii("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000\r\n"));
        long progress = decoder.progress();
        for (int at = 0; at < value.length; at += 1_000)
        {
            channel.writeInbound(Unpooled.wrappedBuffer(value, at, 1_000));
            assertEquals(at + 1_000, sink.bytes.size(), "handed on as it arrives");
            assertTrue(decoder.progress() > progress, "progress moves with the bytes");
            progress = decoder.progress();
            assertNull(channel.readInbound(), "no request before its end");
        }
        channel.writeInbound(ascii("\r\n"));
        final LongRequest request = assertInstanceOf(LongRequest.class, channel.readInbound());
        assertEquals(5_000, sink.announced);
        assertArrayEquals(value, sink.bytes.toByteArray());
        assertEquals("SET", new String(request.args()[0], StandardCharsets.US_ASCII));
        assertEquals(0, request.args()[2].length);
        assertEquals("staged:5000", request.staged()[2]);
        assertNull(request.staged()[1]);

        // a bulk the decoder holds is an argument as before
        channel.writeInbound(ascii("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"));
        assertInstanceOf(byte[][].class, channel.readInbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void aConnectionGoneHalfwayAbandonsTheBulkAndWhatItsRequestStaged()
    {
        final Recording sink = new Recording();
        final EmbeddedChannel channel = new EmbeddedChannel(
            new RespDecoder(16, HELD, 1 << 20, true, SystemNanoClock.INSTANCE, sink));
        channel.writeInbound(ascii("*3\r\n$3\r\nSET\r\n$2000\r\n" + "k".repeat(2_000) + "\r\n$3000\r\n" +
            "v".repeat(1_000)));
        channel.close();
        assertEquals(1, sink.abandoned, "the bulk under way");
        assertEquals(1, sink.abandonedFinished, "the long key finished before it");
    }

    @Test
    void redisBoundsStillHold()
    {
        final Recording sink = new Recording();
        final EmbeddedChannel past = new EmbeddedChannel(
            new RespDecoder(16, HELD, 1 << 20, true, SystemNanoClock.INSTANCE, sink));
        past.writeInbound(ascii("*2\r\n$3\r\nSET\r\n$" + (RespDecoder.REDIS_MAX_BULK + 1) + "\r\n"));
        assertEquals("ERR Protocol error: invalid bulk length",
            assertInstanceOf(RespProtocolError.class, past.readInbound()).message());
        final EmbeddedChannel unauthenticated = new EmbeddedChannel(
            new RespDecoder(16, HELD, 1 << 20, false, SystemNanoClock.INSTANCE, sink));
        unauthenticated.writeInbound(ascii("*2\r\n$4\r\nAUTH\r\n$100000\r\n"));
        assertEquals("ERR Protocol error: unauthenticated bulk length",
            assertInstanceOf(RespProtocolError.class, unauthenticated.readInbound()).message());
        assertEquals(-1, sink.announced, "nothing staged for either");
    }

    private static ByteBuf ascii(final String text)
    {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }
}

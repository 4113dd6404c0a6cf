package io.dkv.compute.resp;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Writes replies in RESP2 or RESP3 (HELLO 3) straight into an outbound buffer. The protocol matters only where the two
 * differ: the null reply and maps.
 */
public final class RespReplies
{
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL2 = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL3 = "_\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL_ARRAY2 = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);

    private RespReplies()
    {
    }

    public static void ok(final ByteBuf out)
    {
        out.writeBytes(OK);
    }

    public static void simple(final ByteBuf out, final String text)
    {
        out.writeByte('+');
        out.writeCharSequence(text, StandardCharsets.UTF_8);
        out.writeBytes(CRLF);
    }

    /**
     * @param message the error without its '-': it starts with its code (ERR, NOAUTH, WRONGPASS...). Line breaks are
     *                made spaces, as redis does, so that a message carrying a peer's bytes cannot break the framing.
     */
    public static void error(final ByteBuf out, final String message)
    {
        out.writeByte('-');
        out.writeCharSequence(message.replace('\r', ' ').replace('\n', ' '), StandardCharsets.ISO_8859_1);
        out.writeBytes(CRLF);
    }

    public static void integer(final ByteBuf out, final long value)
    {
        out.writeByte(':');
        writeLong(out, value);
        out.writeBytes(CRLF);
    }

    public static void bulk(final ByteBuf out, final byte[] value)
    {
        out.writeByte('$');
        writeLong(out, value.length);
        out.writeBytes(CRLF);
        out.writeBytes(value);
        out.writeBytes(CRLF);
    }

    public static void bulk(final ByteBuf out, final String value)
    {
        bulk(out, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Text for people (INFO, CLUSTER NODES): RESP3's verbatim string of format txt, a bulk string in RESP2. */
    public static void text(final ByteBuf out, final String text, final int protocol)
    {
        final byte[] body = text.getBytes(StandardCharsets.UTF_8);
        if (protocol != 3)
        {
            bulk(out, body);
            return;
        }
        out.writeByte('=');
        writeLong(out, body.length + 4);
        out.writeBytes(CRLF);
        out.writeCharSequence("txt:", StandardCharsets.US_ASCII);
        out.writeBytes(body);
        out.writeBytes(CRLF);
    }

    /** A bulk string, or the protocol's null when there is no value. */
    public static void bulkOrNull(final ByteBuf out, final byte[] value, final int protocol)
    {
        if (value == null)
        {
            nullReply(out, protocol);
        }
        else
        {
            bulk(out, value);
        }
    }

    public static void nullReply(final ByteBuf out, final int protocol)
    {
        out.writeBytes(protocol == 3 ? NULL3 : NULL2);
    }

    /** No array: RESP2's null array, RESP3's null (EXEC when a watched key changed). */
    public static void nullArray(final ByteBuf out, final int protocol)
    {
        out.writeBytes(protocol == 3 ? NULL3 : NULL_ARRAY2);
    }

    public static void arrayHeader(final ByteBuf out, final int length)
    {
        out.writeByte('*');
        writeLong(out, length);
        out.writeBytes(CRLF);
    }

    /** A push of {@code length} elements (pub/sub's messages): RESP3's push, or in RESP2 an array. */
    public static void pushHeader(final ByteBuf out, final int length, final int protocol)
    {
        out.writeByte(protocol == 3 ? '>' : '*');
        writeLong(out, length);
        out.writeBytes(CRLF);
    }

    /** A map of {@code pairs} entries: RESP3's map, or in RESP2 an array of keys and values in turn. */
    public static void mapHeader(final ByteBuf out, final int pairs, final int protocol)
    {
        out.writeByte(protocol == 3 ? '%' : '*');
        writeLong(out, protocol == 3 ? pairs : 2L * pairs);
        out.writeBytes(CRLF);
    }

    /** A set's header: RESP3's set, or in RESP2 an array. */
    public static void setHeader(final ByteBuf out, final int length, final int protocol)
    {
        out.writeByte(protocol == 3 ? '~' : '*');
        writeLong(out, length);
        out.writeBytes(CRLF);
    }

    private static void writeLong(final ByteBuf out, final long value)
    {
        if (value >= 0 && value < 10)
        {
            out.writeByte('0' + (int)value);
        }
        else
        {
            out.writeCharSequence(Long.toString(value), StandardCharsets.US_ASCII);
        }
    }
}

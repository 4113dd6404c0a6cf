package io.dkv.compute.resp;

import io.netty.buffer.ByteBuf;

/**
 * Integers as redis-server reads them (its {@code string2ll}): an optional '-', then digits with no leading zero
 * (a lone "0" aside), no sign '+', no spaces, at most 20 characters, within a signed 64-bit range.
 */
public final class RespNumbers
{
    /** What the parsers answer for text that is not such an integer; outside every bound checked with it. */
    public static final long INVALID = Long.MIN_VALUE;
    private static final int MAX_DIGITS = 20;

    private RespNumbers()
    {
    }

    static long parseLong(final ByteBuf buf, final int from, final int to)
    {
        final int length = to - from;
        if (length <= 0 || length > MAX_DIGITS)
        {
            return INVALID;
        }
        final byte[] text = new byte[length];
        buf.getBytes(from, text);
        return parseLong(text);
    }

    /**
     * @return the value, or {@link #INVALID} when the text is not an integer redis accepts; Long.MIN_VALUE itself is
     * valid redis input, so callers that must take it use {@link #isLong} first.
     */
    public static long parseLong(final byte[] text)
    {
        return isLong(text) ? Long.parseLong(new String(text, java.nio.charset.StandardCharsets.US_ASCII)) : INVALID;
    }

    /** @return true when the text is a 64-bit integer as redis writes them. */
    public static boolean isLong(final byte[] text)
    {
        final int length = text.length;
        if (length == 0 || length > MAX_DIGITS)
        {
            return false;
        }
        if (length == 1 && text[0] == '0')
        {
            return true;
        }
        int i = 0;
        final boolean negative = text[0] == '-';
        if (negative)
        {
            i++;
            if (length == 1)
            {
                return false;
            }
        }
        if (text[i] < '1' || text[i] > '9')
        {
            return false;
        }
        long value = 0;
        for (; i < length; i++)
        {
            final int digit = text[i] - '0';
            if (digit < 0 || digit > 9)
            {
                return false;
            }
            // accumulate as a negative number: its range is one wider, so Long.MIN_VALUE fits
            if (value < (Long.MIN_VALUE + digit) / 10)
            {
                return false;
            }
            value = value * 10 - digit;
        }
        return negative || value != Long.MIN_VALUE;
    }
}

package io.dkv.compute.limits;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Redis's memory values in settings: digits, then b, k, kb, m, mb, g or gb in any case (its memtoull). */
public final class MemoryUnits
{
    private MemoryUnits()
    {
    }

    /** @return the value of the text, or null when it is none. */
    public static Long parse(final byte[] text)
    {
        return parse(new String(text, StandardCharsets.ISO_8859_1));
    }

    /** @return the value of the text, or null when it is none. */
    public static Long parse(final String s)
    {
        int digits = 0;
        while (digits < s.length() && Character.isDigit(s.charAt(digits)))
        {
            digits++;
        }
        final long multiplier = switch (s.substring(digits).toLowerCase(Locale.ROOT))
        {
            case "", "b" -> 1;
            case "k" -> 1000;
            case "kb" -> 1024;
            case "m" -> 1000 * 1000;
            case "mb" -> 1024 * 1024;
            case "g" -> 1000L * 1000 * 1000;
            case "gb" -> 1024L * 1024 * 1024;
            default -> 0;
        };
        if (multiplier == 0 || s.startsWith("-") || digits >= 128)
        {
            return null;
        }
        if (digits == 0)
        {
            return 0L;
        }
        // strtoull saturates at 2^64 - 1; the product wraps as C's unsigned arithmetic does
        final BigInteger value = new BigInteger(s.substring(0, digits)).min(BigInteger.ONE.shiftLeft(64)
            .subtract(BigInteger.ONE));
        return value.longValue() * multiplier;
    }
}

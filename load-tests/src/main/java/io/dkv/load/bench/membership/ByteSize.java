package io.dkv.load.bench.membership;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A size in bytes as an option gives it: a count with an optional binary suffix, {@code k}, {@code m} or {@code g}
 * (KiB, MiB, GiB), e.g. {@code 256m}.
 */
final class ByteSize implements ITypeConverter<Long>
{
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg]?)(i?b)?");

    public Long convert(final String text)
    {
        return parse(text);
    }

    static long parse(final String text)
    {
        final Matcher matcher = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!matcher.matches())
        {
            throw new TypeConversionException("'" + text + "' is no size: a count of bytes with an optional k, m " +
                "or g (KiB, MiB, GiB), e.g. 256m");
        }
        final int shift = switch (matcher.group(2))
        {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        try
        {
            final long count = Long.parseLong(matcher.group(1));
            if (count > Long.MAX_VALUE >> shift)
            {
                throw new TypeConversionException("'" + text + "' is more bytes than a long holds");
            }
            return count << shift;
        }
        catch (final NumberFormatException ex)
        {
            throw new TypeConversionException("'" + text + "' is more bytes than a long holds");
        }
    }

    /** @return {@code bytes} as MiB with one decimal. */
    static String mebibytes(final double bytes)
    {
        return String.format(Locale.ROOT, "%,.1f", bytes / (1 << 20));
    }
}

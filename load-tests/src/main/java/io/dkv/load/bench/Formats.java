package io.dkv.load.bench;

import java.util.Locale;

/**
 * How the benchmarks print their figures, the same in every table: grouped digits, ratios with two
 * decimals and an x.
 */
public final class Formats
{
    private Formats()
    {
    }

    /** @return nanoseconds with grouped digits. */
    public static String nanos(final long nanos)
    {
        return String.format(Locale.ROOT, "%,d", nanos);
    }

    /** @return nanoseconds as microseconds with one decimal. */
    public static String micros(final long nanos)
    {
        return String.format(Locale.ROOT, "%,.1f", nanos / 1000.0);
    }

    /** @return a ratio such as {@code 1.05x}. */
    public static String ratio(final double ratio)
    {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }

    /** @return operations per second, rounded to a whole operation. */
    public static String opsPerSecond(final double opsPerSecond)
    {
        return String.format(Locale.ROOT, "%,.0f", opsPerSecond);
    }

    /** @return a count with grouped digits. */
    public static String count(final long count)
    {
        return String.format(Locale.ROOT, "%,d", count);
    }
}

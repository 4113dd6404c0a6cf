package io.dkv.checker.elle;

import java.util.Locale;

/**
 * Why one transaction must come before another (Adya's dependencies, and real time). A type's bit in a dependency
 * graph's edge masks is {@code 1 << ordinal()}.
 */
public enum DependencyType
{
    /** Write-write: the later transaction appended the element right after the earlier one's. */
    WW,
    /** Write-read: the later transaction read a list ending at the earlier one's element. */
    WR,
    /** Read-write (anti-dependency): the earlier transaction read a list the later one's append extended. */
    RW,
    /** Real time: the earlier transaction completed before the later one was invoked. */
    REALTIME;

    private static final DependencyType[] VALUES = values();

    /** @return the name used in anomaly explanations: ww, wr, rw or realtime. */
    public String shortName()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    int bit()
    {
        return 1 << ordinal();
    }

    static DependencyType ofBit(final int bit)
    {
        final int ordinal = Integer.numberOfTrailingZeros(bit);
        if (Integer.bitCount(bit) != 1 || ordinal >= VALUES.length)
        {
            throw new IllegalArgumentException("no dependency type has bit " + bit);
        }
        return VALUES[ordinal];
    }
}

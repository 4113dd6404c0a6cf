package io.dkv.checker.elle;

/**
 * Why one transaction must come before another (Adya's dependencies, and real time).
 */
public enum DependencyType
{
    /** Write-write: the later transaction appended the element right after the earlier one's. */
    WW("ww", 1),
    /** Write-read: the later transaction read a list ending at the earlier one's element. */
    WR("wr", 2),
    /** Read-write (anti-dependency): the earlier transaction read a list the later one's append extended. */
    RW("rw", 4),
    /** Real time: the earlier transaction completed before the later one was invoked. */
    REALTIME("realtime", 8);

    private final String shortName;
    private final int bit;

    DependencyType(final String shortName, final int bit)
    {
        this.shortName = shortName;
        this.bit = bit;
    }

    /** @return the name used in anomaly explanations: ww, wr, rw or realtime. */
    public String shortName()
    {
        return shortName;
    }

    int bit()
    {
        return bit;
    }

    static DependencyType ofBit(final int bit)
    {
        for (final DependencyType type : values())
        {
            if (type.bit == bit)
            {
                return type;
            }
        }
        throw new IllegalArgumentException("no dependency type has bit " + bit);
    }
}

package io.dkv.load.bench;

import java.util.SplittableRandom;

/**
 * Random 8-byte-aligned offsets into a region, drawn before a measurement so that no random
 * number is generated on the timed path.
 */
public final class RandomOffsets
{
    /** A power of two, so that probes cycle through the offsets with a mask. */
    public static final int COUNT = 1 << 20;
    public static final int ALIGNMENT = 8;

    private RandomOffsets()
    {
    }

    /**
     * @param seed         seed of the generator, so that runs access the same offsets.
     * @param regionLength bytes of the region accessed.
     * @param accessLength bytes of each access; every access lies wholly inside the region.
     * @return {@link #COUNT} offsets.
     */
    public static long[] generate(final long seed, final long regionLength, final int accessLength)
    {
        if (accessLength <= 0 || accessLength > regionLength)
        {
            throw new IllegalArgumentException(
                "access of " + accessLength + " bytes does not fit a region of " + regionLength + " bytes");
        }
        final long slots = (regionLength - accessLength) / ALIGNMENT + 1;
        final SplittableRandom random = new SplittableRandom(seed);
        final long[] offsets = new long[COUNT];
        for (int i = 0; i < COUNT; i++)
        {
            offsets[i] = random.nextLong(slots) * ALIGNMENT;
        }
        return offsets;
    }
}

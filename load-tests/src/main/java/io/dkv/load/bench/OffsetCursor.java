package io.dkv.load.bench;

/**
 * Walks a measurement's random offsets ({@link RandomOffsets}) one access at a time, from the first again after the
 * last: nothing is computed on the timed path but a mask.
 */
public final class OffsetCursor
{
    private final long[] offsets;
    private final int mask;
    private int cursor;

    /**
     * @param offsets as {@link RandomOffsets#generate} draws them: a power of two of them.
     */
    public OffsetCursor(final long[] offsets)
    {
        this(offsets, 0);
    }

    /**
     * @param offsets as {@link RandomOffsets#generate} draws them: a power of two of them.
     * @param first   the index of the first offset, so that several readers of the same offsets go different ways.
     */
    public OffsetCursor(final long[] offsets, final int first)
    {
        if (Integer.bitCount(offsets.length) != 1)
        {
            throw new IllegalArgumentException(
                offsets.length + " offsets: a power of two is needed to cycle with a mask");
        }
        this.offsets = offsets;
        this.mask = offsets.length - 1;
        this.cursor = first;
    }

    /** @return the next offset. */
    public long next()
    {
        return offsets[cursor++ & mask];
    }
}

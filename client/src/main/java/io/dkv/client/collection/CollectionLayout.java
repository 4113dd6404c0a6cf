package io.dkv.client.collection;

import java.nio.ByteBuffer;

/**
 * A collection's header: the value at its key (kind {@code ValueKind.HASH} or {@code SET}), which names its segments
 * and counts its elements. Every change of the collection writes it, so that a reader checks the header alone to know
 * that the segments it read are of one instant.
 *
 * <pre>
 *   0  generation  long  drawn at random when the collection was made, never 0: its segments' keys carry it
 *   8  count       long  elements
 *  16  bytes       long  the elements' encoded bytes ({@link SegmentLayout#entryLength}) over all segments
 *  24  level       int   linear hashing's level L
 *  28  split       int   its split pointer p, 0 to 2^L - 1: segments 0 .. p-1 are split at level L + 1
 *  32
 * </pre>
 *
 * The collection has 2^L + p segments; an element whose field hashes to h is in segment h mod 2^L, or h mod 2^(L+1)
 * when that is below p.
 */
public final class CollectionLayout
{
    public static final int GENERATION_OFFSET = 0;
    public static final int COUNT_OFFSET = 8;
    public static final int BYTES_OFFSET = 16;
    public static final int LEVEL_OFFSET = 24;
    public static final int SPLIT_OFFSET = 28;
    public static final int LENGTH = 32;

    private CollectionLayout()
    {
    }

    static byte[] encode(final long generation, final long count, final long bytes, final int level, final int split)
    {
        return ByteBuffer.allocate(LENGTH).putLong(generation).putLong(count).putLong(bytes).putInt(level)
            .putInt(split).array();
    }

    static long generation(final byte[] header)
    {
        return ByteBuffer.wrap(header).getLong(GENERATION_OFFSET);
    }

    static long count(final byte[] header)
    {
        return ByteBuffer.wrap(header).getLong(COUNT_OFFSET);
    }

    static long bytes(final byte[] header)
    {
        return ByteBuffer.wrap(header).getLong(BYTES_OFFSET);
    }

    static int level(final byte[] header)
    {
        return ByteBuffer.wrap(header).getInt(LEVEL_OFFSET);
    }

    static int split(final byte[] header)
    {
        return ByteBuffer.wrap(header).getInt(SPLIT_OFFSET);
    }

    /** @return a copy of the header naming another generation: a copy of the collection (a rename keeps it). */
    public static byte[] withGeneration(final byte[] header, final long generation)
    {
        final byte[] copy = header.clone();
        ByteBuffer.wrap(copy).putLong(GENERATION_OFFSET, generation);
        return copy;
    }
}

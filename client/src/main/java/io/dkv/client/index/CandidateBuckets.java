package io.dkv.client.index;

import io.dkv.client.async.AsyncGet;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.format.IndexLayout;
import io.dkv.format.KeyHash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A key's two candidate combined buckets as one read brought them: whether they are still the key's,
 * and their slots in address order. Shared by the synchronous operations and {@link AsyncGet}.
 */
public final class CandidateBuckets
{
    /** The buckets hold the key's candidates. */
    public static final int HOLD_KEY = 0;
    /** A subtable split has them locked. */
    static final int LOCKED = 1;
    /** They hold other keys now: the directory the reader used is older than a split. */
    public static final int MOVED = 2;
    /** Slots of two combined buckets: the most a key's candidates hold. */
    public static final int SLOTS = 2 * IndexLayout.SLOTS_PER_COMBINED_BUCKET;

    private static final ValueLayout.OfLong SLOT = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private CandidateBuckets()
    {
    }

    /** @return the offset in the index region of the key's candidate combined bucket 0 or 1. */
    public static long offset(final MemoryNodeView view, final long hash, final int candidate)
    {
        return view.subtableFor(hash) + IndexLayout.combinedBucketOffset(KeyHash.group(hash, candidate, view.groups),
            KeyHash.side(hash, candidate));
    }

    /**
     * @return {@link #HOLD_KEY}, {@link #LOCKED} or {@link #MOVED} for the two combined buckets read into
     * {@code buffer} at {@code offset}.
     */
    public static int state(final long hash, final MemorySegment buffer, final long offset)
    {
        int state = HOLD_KEY;
        for (int bucket = 0; bucket < 4; bucket++)
        {
            final long header = buffer.get(SLOT, offset + (long)bucket * IndexLayout.BUCKET_LENGTH);
            if (IndexLayout.isLocked(header))
            {
                return LOCKED;
            }
            if (!IndexLayout.holds(header, hash))
            {
                state = MOVED;
            }
        }
        return state;
    }

    /**
     * List the slots of the candidates at {@code first} and {@code second} (their offsets in the index), read
     * into {@code buffer} at {@code offset} in that order, in address order. Two combined buckets start 0, 64 or
     * at least 128 bytes apart: the same one, the two of one group (sharing its overflow bucket), or apart.
     *
     * @return how many slots were listed.
     */
    public static int collect(final long first, final long second, final MemorySegment buffer, final long offset,
        final long[] slotOffsets, final long[] words)
    {
        final boolean firstIsLower = first <= second;
        final long lower = firstIsLower ? first : second;
        final long upper = firstIsLower ? second : first;
        final long lowerAt = firstIsLower ? offset : offset + IndexLayout.COMBINED_BUCKET_LENGTH;
        final long upperAt = firstIsLower ? offset + IndexLayout.COMBINED_BUCKET_LENGTH : offset;
        int count = append(lower, buffer, lowerAt, 0, slotOffsets, words, 0);
        if (upper == lower + IndexLayout.BUCKET_LENGTH)
        {
            count = append(upper, buffer, upperAt, IndexLayout.SLOTS_PER_BUCKET, slotOffsets, words, count);
        }
        else if (upper != lower)
        {
            count = append(upper, buffer, upperAt, 0, slotOffsets, words, count);
        }
        return count;
    }

    private static int append(final long bucketOffset, final MemorySegment buffer, final long bufferOffset,
        final int fromSlot, final long[] slotOffsets, final long[] words, final int count)
    {
        int next = count;
        for (int i = fromSlot; i < IndexLayout.SLOTS_PER_COMBINED_BUCKET; i++)
        {
            final int inBucket = IndexLayout.slotOffsetInCombined(i);
            slotOffsets[next] = bucketOffset + inBucket;
            words[next] = buffer.get(SLOT, bufferOffset + inBucket);
            next++;
        }
        return next;
    }
}

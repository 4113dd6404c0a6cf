package io.dkv.client.index;

import io.dkv.format.IndexLayout;
import io.dkv.format.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A node's index copied whole, and the blocks a list of slot words names read in windows of its heap, in address
 * order: a window whole where its blocks are dense, each block on its own where they are far apart. How a sweep
 * judges a million keys in some thousand READs rather than a million (client/README.md, "Refill from whole reads").
 * One thread's.
 */
public final class WholeReads
{
    /** Heap bytes read in one round: a window of blocks. */
    public static final int WINDOW = 1 << 20;
    /** Bytes one READ of a window or of an index asks for. */
    public static final int PIECE = 64 * 1024;
    /** A window is read whole only where its blocks take at most this many of its bytes each, on average. */
    public static final int BYTES_PER_BLOCK = 1024;
    /**
     * Blocks read apart in one round: at most 8 KiB each (a slot's length hint), they fit the window buffer; as many
     * as a window's pieces.
     */
    public static final int BLOCKS_A_ROUND = 64;
    /** The largest index copied: past it a caller reads range by range instead. */
    public static final long MAX_INDEX_BYTES = 64L << 20;
    /** The most entries {@link #readBlocks} takes: a sort key numbers them in its low bits. */
    public static final int MAX_ENTRIES = 1 << 25;

    private static final int ENTRY_BITS = 25;
    private static final long ENTRY_MASK = (1L << ENTRY_BITS) - 1;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Told of each block read: entry {@code e}'s, at {@code at} in {@code blocks}, which holds it whole. */
    @FunctionalInterface
    public interface BlockVisitor
    {
        void visit(int e, MemorySegment blocks, long at);
    }

    private final IndexListing listing;
    private final long[] offsets = new long[BLOCKS_A_ROUND];
    private final int[] lengths = new int[BLOCKS_A_ROUND];
    private MemorySegment window;
    private MemorySegment piece;
    private long[] sortKeys = new long[0];

    public WholeReads(final IndexListing listing)
    {
        this.listing = listing;
    }

    /**
     * @return a copy of the node's index, from its header to its last subtable's end, read in {@link #PIECE}s one
     * after another; null when larger than {@link #MAX_INDEX_BYTES}.
     */
    public MemorySegment copyIndex(final int node)
    {
        if (piece == null)
        {
            piece = listing.allocateBuffer(PIECE);
        }
        listing.readIndex(node, 0, piece, IndexLayout.HEADER_LENGTH);
        final long end = subtablesEnd(piece);
        if (end > MAX_INDEX_BYTES)
        {
            return null;
        }
        final MemorySegment index = MemorySegment.ofArray(new byte[(int)end]);
        for (long at = 0; at < end; at += PIECE)
        {
            final int length = (int)Math.min(PIECE, end - at);
            listing.readIndex(node, at, piece, length);
            MemorySegment.copy(piece, 0, index, at, length);
        }
        return index;
    }

    /**
     * @param out where not null, filled with the committed words of the copied index's subtables, in address order.
     * @return how many there are.
     */
    public static int committedWords(final MemorySegment index, final long[] out)
    {
        final long start = IndexLayout.subtablesOffset(index.get(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET));
        final long end = subtablesEnd(index);
        int words = 0;
        for (long bucket = start; bucket < end; bucket += IndexLayout.BUCKET_LENGTH)
        {
            for (int i = 0; i < IndexLayout.SLOTS_PER_BUCKET; i++)
            {
                final long word = index.get(LONG, bucket + IndexLayout.BUCKET_HEADER_LENGTH +
                    (long)i * IndexLayout.SLOT_LENGTH);
                if (SlotWord.isCommitted(word))
                {
                    if (out != null)
                    {
                        out[words] = word;
                    }
                    words++;
                }
            }
        }
        return words;
    }

    /**
     * Read the blocks that entries' words name at a node, in windows of its heap in address order, and show each
     * to the visitor. A word whose length hint is 0 (a block too long for it to say) must not be among them.
     *
     * @param words   per entry, the committed slot word naming its block.
     * @param entries which of {@code words} to read: their indexes, {@code count} of them (at most
     *                {@link #MAX_ENTRIES}).
     */
    public void readBlocks(final int node, final long[] words, final int[] entries, final int count,
        final BlockVisitor visitor)
    {
        if (sortKeys.length < count)
        {
            sortKeys = new long[count];
        }
        for (int k = 0; k < count; k++)
        {
            sortKeys[k] = (SlotWord.blockOffset(words[entries[k]]) / SlotWord.UNIT) << ENTRY_BITS | entries[k];
        }
        Arrays.sort(sortKeys, 0, count);
        if (window == null)
        {
            window = listing.allocateBuffer(WINDOW);
        }
        int from = 0;
        while (from < count)
        {
            final long start = offsetOf(sortKeys[from]);
            long end = start;
            int to = from;
            while (to < count)
            {
                final long blockEnd = offsetOf(sortKeys[to]) + SlotWord.lengthHint(words[entryOf(sortKeys[to])]);
                if (blockEnd - start > WINDOW)
                {
                    break;
                }
                end = Math.max(end, blockEnd);
                to++;
            }
            if (end - start <= (long)(to - from) * BYTES_PER_BLOCK)
            {
                int pieces = 0;
                for (long at = start; at < end; at += PIECE)
                {
                    offsets[pieces] = at;
                    lengths[pieces++] = (int)Math.min(PIECE, end - at);
                }
                listing.readHeapBlocks(node, offsets, lengths, pieces, window);
                for (int k = from; k < to; k++)
                {
                    visitor.visit(entryOf(sortKeys[k]), window, offsetOf(sortKeys[k]) - start);
                }
            }
            else
            {
                readApart(node, from, to, words, visitor);
            }
            from = to;
        }
    }

    /** The blocks of sorted entries {@code from} to {@code to}, too far apart to read their window whole. */
    private void readApart(final int node, final int from, final int to, final long[] words,
        final BlockVisitor visitor)
    {
        for (int first = from; first < to; first += BLOCKS_A_ROUND)
        {
            final int last = Math.min(to, first + BLOCKS_A_ROUND);
            for (int k = first; k < last; k++)
            {
                offsets[k - first] = offsetOf(sortKeys[k]);
                lengths[k - first] = SlotWord.lengthHint(words[entryOf(sortKeys[k])]);
            }
            listing.readHeapBlocks(node, offsets, lengths, last - first, window);
            long at = 0;
            for (int k = first; k < last; k++)
            {
                visitor.visit(entryOf(sortKeys[k]), window, at);
                at += lengths[k - first];
            }
        }
    }

    private static long subtablesEnd(final MemorySegment header)
    {
        final int groups = header.get(INT, IndexLayout.GROUPS_PER_SUBTABLE_OFFSET);
        final int subtables = header.get(INT, IndexLayout.SUBTABLES_OFFSET);
        return IndexLayout.subtablesOffset(header.get(INT, IndexLayout.MAX_GLOBAL_DEPTH_OFFSET)) +
            (long)groups * subtables * IndexLayout.GROUP_LENGTH;
    }

    private static long offsetOf(final long sortKey)
    {
        return (sortKey >>> ENTRY_BITS) * SlotWord.UNIT;
    }

    private static int entryOf(final long sortKey)
    {
        return (int)(sortKey & ENTRY_MASK);
    }
}

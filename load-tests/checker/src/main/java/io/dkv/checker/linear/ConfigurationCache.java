package io.dkv.checker.linear;

import java.util.Arrays;

/**
 * The configurations a search has already been through: the set of operations linearized and the register
 * value after them. Reaching one again cannot lead anywhere new, so the search prunes it (Lowe's cache).
 *
 * <p>A set is stored compactly: the words of the determinate operations from the first one not full to the last
 * one not empty (below are all ones, above all zeros; a search only ever has a window of about the concurrency
 * open), then every word of the indeterminate operations. Entries lie one after another in a long array and an
 * open addressing table of their offsets finds them, so the memory taken is known and bounded.
 */
final class ConfigurationCache
{
    static final int ADDED = 1;
    static final int PRESENT = 0;
    static final int FULL = -1;

    private static final int HEADER_WORDS = 2;
    private static final int MIN_SLOTS = 64;
    private static final long MAX_ARENA_WORDS = Integer.MAX_VALUE - 16;

    private final long limitBytes;
    private long[] arena = new long[1024];
    private int arenaUsed;
    private long[] slotHashes = new long[MIN_SLOTS];
    private int[] slotOffsets = new int[MIN_SLOTS];
    private int size;

    /** @param limitBytes how much memory the arrays of the cache may take; past it {@link #add} answers FULL. */
    ConfigurationCache(final long limitBytes)
    {
        this.limitBytes = limitBytes;
    }

    /** Forget every configuration, sizing the table for a search over about {@code operations} operations. */
    void reset(final int operations)
    {
        arenaUsed = 0;
        size = 0;
        final int slots = Math.max(MIN_SLOTS, Integer.highestOneBit(Math.max(1, operations)) << 2);
        if (slotOffsets.length > slots * 4 || slotOffsets.length < slots)
        {
            slotHashes = new long[slots];
            slotOffsets = new int[slots];
        }
        else
        {
            Arrays.fill(slotOffsets, 0);
        }
        if (arena.length > (1 << 20) && arena.length > operations * 64L)
        {
            arena = new long[Math.max(1024, operations * 8)];
        }
    }

    int size()
    {
        return size;
    }

    long bytes()
    {
        return arena.length * 8L + slotOffsets.length * 12L;
    }

    /**
     * @param state      the register value after the operations linearized.
     * @param linearized the operations linearized.
     * @return {@link #ADDED}, {@link #PRESENT} when it was there already, or {@link #FULL} when adding it would
     * pass the memory limit.
     */
    int add(final int state, final LinearizedSet linearized)
    {
        final long[] words = linearized.words();
        final int lo = linearized.lo();
        final int hi = linearized.hi();
        final int infoFrom = linearized.infoFrom();
        final int infoWords = linearized.infoWords();
        final long hash = LinearizedSet.mix(linearized.hash() + state * 0x9E37_79B9_7F4A_7C15L);
        final long header = ((long) state << 32) | (lo & 0xFFFF_FFFFL);
        final int mask = slotOffsets.length - 1;
        int slot = (int) hash & mask;
        int offset;
        while ((offset = slotOffsets[slot]) != 0)
        {
            if (slotHashes[slot] == hash && matches(offset - 1, header, words, lo, hi, infoFrom, infoWords))
            {
                return PRESENT;
            }
            slot = (slot + 1) & mask;
        }

        final int length = HEADER_WORDS + (hi - lo) + infoWords;
        if ((arenaUsed + length > arena.length && !growArena(length)) ||
            ((size + 1) * 2 > slotOffsets.length && !growTable()))
        {
            return FULL;
        }
        if (slotOffsets.length - 1 != mask)
        {
            slot = (int) hash & (slotOffsets.length - 1);
            while (slotOffsets[slot] != 0)
            {
                slot = (slot + 1) & (slotOffsets.length - 1);
            }
        }
        final int start = arenaUsed;
        arena[start] = header;
        arena[start + 1] = hi - lo;
        System.arraycopy(words, lo, arena, start + HEADER_WORDS, hi - lo);
        System.arraycopy(words, infoFrom, arena, start + HEADER_WORDS + hi - lo, infoWords);
        arenaUsed = start + length;
        slotHashes[slot] = hash;
        slotOffsets[slot] = start + 1;
        size++;
        return ADDED;
    }

    private boolean matches(
        final int start,
        final long header,
        final long[] words,
        final int lo,
        final int hi,
        final int infoFrom,
        final int infoWords)
    {
        if (arena[start] != header || arena[start + 1] != hi - lo)
        {
            return false;
        }
        return Arrays.equals(arena, start + HEADER_WORDS, start + HEADER_WORDS + hi - lo, words, lo, hi) &&
            Arrays.equals(arena, start + HEADER_WORDS + hi - lo, start + HEADER_WORDS + hi - lo + infoWords,
                words, infoFrom, infoFrom + infoWords);
    }

    private boolean growArena(final int length)
    {
        final long wanted = Math.max(arenaUsed + (long) length, arena.length + (arena.length >> 1));
        if (wanted > MAX_ARENA_WORDS || wanted * 8 + slotOffsets.length * 12L > limitBytes)
        {
            return false;
        }
        arena = Arrays.copyOf(arena, (int) wanted);
        return true;
    }

    private boolean growTable()
    {
        final int slots = slotOffsets.length * 2;
        if (slots <= 0 || arena.length * 8L + slots * 12L > limitBytes)
        {
            return false;
        }
        final long[] oldHashes = slotHashes;
        final int[] oldOffsets = slotOffsets;
        slotHashes = new long[slots];
        slotOffsets = new int[slots];
        final int mask = slots - 1;
        for (int i = 0; i < oldOffsets.length; i++)
        {
            if (oldOffsets[i] != 0)
            {
                int slot = (int) oldHashes[i] & mask;
                while (slotOffsets[slot] != 0)
                {
                    slot = (slot + 1) & mask;
                }
                slotHashes[slot] = oldHashes[i];
                slotOffsets[slot] = oldOffsets[i];
            }
        }
        return true;
    }
}

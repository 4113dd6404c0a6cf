package io.dkv.format;

/**
 * The 8-byte index slot, swapped whole by CAS. Zero is an empty slot.
 *
 * <pre>
 *  63..56  fingerprint   8 bits of the key's hash: most non-matching slots are skipped unread
 *  55      committed     1 = the key's value; 0 = tentative: an insert not yet decided, invisible to readers
 *  54..48  length        the block's length in 64-byte units (1..127), or 0: longer, read its header first
 *  47      expires       1 = the block has an expiry time (the node's scan reads only those blocks' expireAt)
 *  46..39  generation    how many times the block's chunk was handed out before, modulo 256
 *  38      sealed        1 = a membership change handed the key's decision to its placement after the change
 *  37..0   block         the block's offset in the heap region / 64 (never 0: the heap's header is there)
 * </pre>
 * The generation fences operations that outlast the grace period (a client or its driver stopped with a CAS in
 * flight): a chunk is handed out again only after its grace period, and then under the next generation, so a word
 * read before cannot name a block written there since, even one of the same key, length and offset. Without it such
 * a stale CAS would find its expected word and land, putting back a value over later writes. Wrapping around takes
 * 256 grace periods of one chunk (at least 42 minutes at the default 10 s). Blocks lie in the first 16 TiB.
 *
 * <p>The seal names the same write as the word without it; it matters only at a moving key's last replica before a
 * membership change, in the change's switch and cleanup phases (client/README.md, "The handover"): a word sealed there
 * says that writes of the key are decided by its replicas after the change. Anything else that swaps the slot may drop
 * it, and the node's scans keep it.
 */
public final class SlotWord
{
    public static final long EMPTY = 0;
    public static final int UNIT = 64;
    public static final int MAX_LENGTH_UNITS = 127;
    private static final long COMMITTED_BIT = 1L << 55;
    private static final long EXPIRES_BIT = 1L << 47;
    public static final int GENERATIONS = 256;
    private static final int GENERATION_SHIFT = 39;
    private static final long GENERATION_MASK = (long)(GENERATIONS - 1) << GENERATION_SHIFT;
    private static final long SEALED_BIT = 1L << 38;
    private static final long BLOCK_MASK = SEALED_BIT - 1;
    /** Heap bytes a slot can name: blocks lie below. */
    public static final long MAX_HEAP_BYTES = (BLOCK_MASK + 1) * UNIT;

    private SlotWord()
    {
    }

    /**
     * @param blockOffset 64-byte aligned, not 0, in a chunk of generation 0.
     * @param blockLength bytes of the block.
     */
    public static long committed(final int fingerprint, final long blockOffset, final int blockLength)
    {
        return committed(fingerprint, blockOffset, blockLength, false, 0);
    }

    /**
     * @param blockOffset 64-byte aligned, not 0.
     * @param blockLength bytes of the block.
     * @param expires     true when the block has an expiry time.
     * @param generation  of the chunk the block is in, as the node handed it out (any int: taken modulo 256).
     */
    public static long committed(final int fingerprint, final long blockOffset, final int blockLength,
        final boolean expires, final int generation)
    {
        if ((blockOffset & (UNIT - 1)) != 0 || blockOffset <= 0 || (blockOffset / UNIT) > BLOCK_MASK)
        {
            throw new IllegalArgumentException("block offset " + blockOffset + " is not a 64-byte aligned heap offset");
        }
        final long units = (blockLength + UNIT - 1) / UNIT;
        final long lengthField = units <= MAX_LENGTH_UNITS ? units : 0;
        return ((long)(fingerprint & 0xff) << 56) | COMMITTED_BIT | (lengthField << 48) | (expires ? EXPIRES_BIT : 0) |
            (((long)generation << GENERATION_SHIFT) & GENERATION_MASK) | (blockOffset / UNIT);
    }

    public static long tentative(final long committedWord)
    {
        return committedWord & ~COMMITTED_BIT;
    }

    public static long commit(final long tentativeWord)
    {
        return tentativeWord | COMMITTED_BIT;
    }

    /** @return the same word, sealed: it names the same write. */
    public static long sealed(final long word)
    {
        return word | SEALED_BIT;
    }

    /** @return the same word without its seal. */
    public static long unsealed(final long word)
    {
        return word & ~SEALED_BIT;
    }

    public static boolean isSealed(final long word)
    {
        return (word & SEALED_BIT) != 0;
    }

    public static boolean isEmpty(final long word)
    {
        return word == EMPTY;
    }

    public static boolean isCommitted(final long word)
    {
        return (word & COMMITTED_BIT) != 0;
    }

    public static int fingerprint(final long word)
    {
        return (int)(word >>> 56);
    }

    /** @return the block's length in bytes rounded up to 64, or 0 when the slot does not say (a longer block). */
    public static int lengthHint(final long word)
    {
        return (int)((word >>> 48) & 0x7f) * UNIT;
    }

    /** @return true when the slot's block has an expiry time (which only the block says). */
    public static boolean expires(final long word)
    {
        return (word & EXPIRES_BIT) != 0;
    }

    public static long blockOffset(final long word)
    {
        return (word & BLOCK_MASK) * UNIT;
    }

    /** @return the generation of the chunk the slot's block is in, 0..255. */
    public static int generation(final long word)
    {
        return (int)((word & GENERATION_MASK) >>> GENERATION_SHIFT);
    }

    /** @return the next generation of a chunk handed out again. */
    public static int nextGeneration(final int generation)
    {
        return (generation + 1) & (GENERATIONS - 1);
    }
}

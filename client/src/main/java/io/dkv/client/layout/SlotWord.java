package io.dkv.client.layout;

/**
 * The 8-byte index slot, swapped whole by CAS. Zero is an empty slot.
 *
 * <pre>
 *  63..56  fingerprint   8 bits of the key's hash: most non-matching slots are skipped unread
 *  55      committed     1 = the key's value; 0 = tentative: an insert not yet decided, invisible to readers
 *  54..48  length        the block's length in 64-byte units (1..127), or 0: longer, read its header first
 *  47      expires       1 = the block has an expiry time (the node's scan reads only those blocks' expireAt)
 *  46..0   block         the block's offset in the heap region / 64 (never 0: the heap's header is there)
 * </pre>
 */
public final class SlotWord
{
    public static final long EMPTY = 0;
    public static final int UNIT = 64;
    public static final int MAX_LENGTH_UNITS = 127;
    private static final long COMMITTED_BIT = 1L << 55;
    private static final long EXPIRES_BIT = 1L << 47;
    private static final long BLOCK_MASK = (1L << 47) - 1;

    private SlotWord()
    {
    }

    /**
     * @param blockOffset 64-byte aligned, not 0.
     * @param blockLength bytes of the block.
     */
    public static long committed(final int fingerprint, final long blockOffset, final int blockLength)
    {
        return committed(fingerprint, blockOffset, blockLength, false);
    }

    /**
     * @param blockOffset 64-byte aligned, not 0.
     * @param blockLength bytes of the block.
     * @param expires     true when the block has an expiry time.
     */
    public static long committed(final int fingerprint, final long blockOffset, final int blockLength,
        final boolean expires)
    {
        if ((blockOffset & (UNIT - 1)) != 0 || blockOffset <= 0 || (blockOffset / UNIT) > BLOCK_MASK)
        {
            throw new IllegalArgumentException("block offset " + blockOffset + " is not a 64-byte aligned heap offset");
        }
        final long units = (blockLength + UNIT - 1) / UNIT;
        final long lengthField = units <= MAX_LENGTH_UNITS ? units : 0;
        return ((long)(fingerprint & 0xff) << 56) | COMMITTED_BIT | (lengthField << 48) | (expires ? EXPIRES_BIT : 0) |
            (blockOffset / UNIT);
    }

    public static long tentative(final long committedWord)
    {
        return committedWord & ~COMMITTED_BIT;
    }

    public static long commit(final long tentativeWord)
    {
        return tentativeWord | COMMITTED_BIT;
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
}

package io.dkv.format;

/**
 * What a key's block holds, kept in bits 62..56 of the block's expiry word ({@link KvBlockLayout#EXPIRE_AT_OFFSET}):
 * a string (0, so every block written before kinds existed, and every plain {@code put}, is one), a collection's
 * header (a hash or a set: its elements live in segments at reserved keys), one segment of a collection, or the
 * header of a string too long for one block (its bytes live in pieces at reserved keys, each a {@link #SEGMENT}), or
 * the header of a sorted set or a list (its elements live in the nodes of ordered trees, each a {@link #SEGMENT}).
 *
 * <pre>
 *   bit 63       62..56   55..0
 *  +----------+---------+------------------------------------------+
 *  | intent   |  kind   |  epoch milliseconds of expiry, or 0: never |
 *  +----------+---------+------------------------------------------+
 * </pre>
 *
 * A transaction's intent is the whole word {@link KvBlockLayout#INTENT} (bit 63 alone) and has no kind: its record
 * carries the kinds of the values it names. Expiry times reach 2^56 ms (year 2.28 million); every comparison of an
 * expiry goes through {@link #expiryOf}, so the memory nodes' expiry scans and a client's reads treat a collection's
 * header as a value like any other.
 */
public final class ValueKind
{
    public static final int STRING = 0;
    public static final int HASH = 1;
    public static final int SET = 2;
    /** A part of a collection's elements, at a reserved key; never read or written by users' commands. */
    public static final int SEGMENT = 3;
    /**
     * A string of more bytes than a block holds: the value at its key names the pieces that hold its bytes
     * (client/README.md, "Strings in pieces"). Users see a string.
     */
    public static final int PIECES = 4;
    /** A sorted set's header: its members live in two ordered trees' nodes, each a {@link #SEGMENT}. */
    public static final int ZSET = 5;
    /** A list's header: its elements live in an ordered tree's nodes, each a {@link #SEGMENT}. */
    public static final int LIST = 6;
    public static final int KIND_SHIFT = 56;
    public static final long KIND_MASK = 0x7fL << KIND_SHIFT;
    /** The first expiry time a word cannot hold. */
    public static final long EXPIRY_LIMIT = 1L << KIND_SHIFT;
    private static final String[] NAMES = {"string", "hash", "set", "segment", "string", "zset", "list"};

    private ValueKind()
    {
    }

    /** @return the kind of a block with this expiry word (an intent's is {@link #STRING}). */
    public static int kindOf(final long word)
    {
        return word == KvBlockLayout.INTENT ? STRING : (int)((word & KIND_MASK) >>> KIND_SHIFT);
    }

    /** @return the expiry time in this word: epoch milliseconds, {@link KvBlockLayout#NEVER}, or the intent mark. */
    public static long expiryOf(final long word)
    {
        return word == KvBlockLayout.INTENT ? word : word & ~KIND_MASK;
    }

    /**
     * @param kind     one of this class's kinds.
     * @param expireAt epoch milliseconds below {@link #EXPIRY_LIMIT}, or {@link KvBlockLayout#NEVER}.
     * @return the expiry word of a block of that kind and expiry.
     */
    public static long word(final int kind, final long expireAt)
    {
        if (expireAt < 0 || expireAt >= EXPIRY_LIMIT)
        {
            throw new IllegalArgumentException("an expiry time is epoch milliseconds below 2^56, or 0 for none; " +
                "this one is " + expireAt);
        }
        return ((long)kind << KIND_SHIFT) | expireAt;
    }

    /** @return {@code word} with its expiry replaced by {@code expireAt}, its kind kept. */
    public static long withExpiry(final long word, final long expireAt)
    {
        return word(kindOf(word), expireAt);
    }

    /** @return true for the kinds users see as strings: {@link #STRING} and {@link #PIECES}. */
    public static boolean isString(final int kind)
    {
        return kind == STRING || kind == PIECES;
    }

    /** @return redis's name of the kind ("string", "hash", "set"), as TYPE answers it. */
    public static String name(final int kind)
    {
        return kind >= 0 && kind < NAMES.length ? NAMES[kind] : "kind " + kind;
    }
}

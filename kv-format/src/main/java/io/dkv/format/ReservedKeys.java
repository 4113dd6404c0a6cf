package io.dkv.format;

/**
 * Keys the store keeps for itself: a collection's segments and a long string's pieces ({@link ValueKind#SEGMENT}),
 * named by a generation drawn at random and a number. They begin with
 * {@link #PREFIX}, which no user's key may: the client and the compute node refuse such keys, and scans leave them
 * out.
 *
 * <pre>
 *   0  prefix      5 bytes  0x00 'd' 'k' 'v' 0x00
 *   5  generation  long     the collection's or piece's, drawn at random when it was made (big-endian)
 *  13  segment     int      the segment's (piece's) number, from 0; {@link #JOURNAL} for a generation's journal
 *  17
 * </pre>
 *
 * A generation of a long string's pieces being written has a journal ({@link JournalLayout}: its time and how many
 * pieces it may have) until a transaction publishes them, and so has a large value's generation that a committed
 * transaction dropped until its segments are removed: what a sweep of journals finds.
 *
 * <p>Named keys ({@link #namedKey}) are the prefix and a name of any length but {@link #SEGMENT_KEY_LENGTH} less the
 * prefix's, so that no segment or journal is ever one: records the store keeps for the nodes that serve it (redis's
 * scripts and function libraries, which compute nodes share). Scans leave them out like every reserved key, and a
 * flush of every key (FLUSHALL) keeps them, as redis's FLUSHALL keeps its scripts and functions.
 */
public final class ReservedKeys
{
    private static final byte[] PREFIX = {0, 'd', 'k', 'v', 0};
    public static final int GENERATION_OFFSET = PREFIX.length;
    public static final int SEGMENT_OFFSET = GENERATION_OFFSET + Long.BYTES;
    public static final int SEGMENT_KEY_LENGTH = SEGMENT_OFFSET + Integer.BYTES;
    /** The segment number of a generation's journal. */
    public static final int JOURNAL = -1;

    private ReservedKeys()
    {
    }

    /** @return true when the key begins with the reserved prefix: the store's, never a user's. */
    public static boolean isReserved(final byte[] key)
    {
        if (key.length < PREFIX.length)
        {
            return false;
        }
        for (int i = 0; i < PREFIX.length; i++)
        {
            if (key[i] != PREFIX[i])
            {
                return false;
            }
        }
        return true;
    }

    /** @return the key of a collection's segment. */
    public static byte[] segmentKey(final long generation, final int segment)
    {
        final byte[] key = new byte[SEGMENT_KEY_LENGTH];
        System.arraycopy(PREFIX, 0, key, 0, PREFIX.length);
        for (int i = 0; i < Long.BYTES; i++)
        {
            key[GENERATION_OFFSET + i] = (byte)(generation >>> (56 - 8 * i));
        }
        for (int i = 0; i < Integer.BYTES; i++)
        {
            key[SEGMENT_OFFSET + i] = (byte)(segment >>> (24 - 8 * i));
        }
        return key;
    }

    /** @return the key of the journal of a generation of pieces being written. */
    public static byte[] journalKey(final long generation)
    {
        return segmentKey(generation, JOURNAL);
    }

    /** @return true when {@code key} is a journal's ({@link #journalKey}). */
    public static boolean isJournal(final byte[] key)
    {
        return key.length == SEGMENT_KEY_LENGTH && isReserved(key) && segmentOf(key) == JOURNAL;
    }

    /** @return the generation a reserved key of {@link #SEGMENT_KEY_LENGTH} bytes names. */
    public static long generationOf(final byte[] key)
    {
        long generation = 0;
        for (int i = 0; i < Long.BYTES; i++)
        {
            generation = (generation << 8) | (key[GENERATION_OFFSET + i] & 0xFF);
        }
        return generation;
    }

    /** @return the segment number a reserved key of {@link #SEGMENT_KEY_LENGTH} bytes names. */
    public static int segmentOf(final byte[] key)
    {
        int segment = 0;
        for (int i = 0; i < Integer.BYTES; i++)
        {
            segment = (segment << 8) | (key[SEGMENT_OFFSET + i] & 0xFF);
        }
        return segment;
    }

    /**
     * @param name the record's name, printable ASCII.
     * @return the named key of that name.
     * @throws IllegalArgumentException for a name that would make a key as long as a segment's.
     */
    public static byte[] namedKey(final String name)
    {
        final byte[] key = new byte[PREFIX.length + name.length()];
        if (key.length == SEGMENT_KEY_LENGTH)
        {
            throw new IllegalArgumentException("a named key is never " + SEGMENT_KEY_LENGTH + " bytes, a segment's " +
                "length; name '" + name + "' is " + name.length() + " bytes");
        }
        System.arraycopy(PREFIX, 0, key, 0, PREFIX.length);
        for (int i = 0; i < name.length(); i++)
        {
            key[PREFIX.length + i] = (byte)name.charAt(i);
        }
        return key;
    }

    /** @return true when {@code key} is a named key ({@link #namedKey}): one a flush of every key keeps. */
    public static boolean isNamed(final byte[] key)
    {
        return key.length != SEGMENT_KEY_LENGTH && isReserved(key);
    }

    /** @return the reason a user's key is refused, naming it, for a key that is reserved. */
    public static String refusal(final String describedKey)
    {
        return "key " + describedKey + " begins with \\x00dkv\\x00, which the store keeps for collections' segments " +
            "and strings' pieces";
    }
}

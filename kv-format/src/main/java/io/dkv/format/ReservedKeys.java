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
 *  13  segment     int      the segment's (piece's) number, from 0
 *  17
 * </pre>
 */
public final class ReservedKeys
{
    private static final byte[] PREFIX = {0, 'd', 'k', 'v', 0};
    public static final int GENERATION_OFFSET = PREFIX.length;
    public static final int SEGMENT_OFFSET = GENERATION_OFFSET + Long.BYTES;
    public static final int SEGMENT_KEY_LENGTH = SEGMENT_OFFSET + Integer.BYTES;

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

    /** @return the reason a user's key is refused, naming it, for a key that is reserved. */
    public static String refusal(final String describedKey)
    {
        return "key " + describedKey + " begins with \\x00dkv\\x00, which the store keeps for collections' segments " +
            "and strings' pieces";
    }
}

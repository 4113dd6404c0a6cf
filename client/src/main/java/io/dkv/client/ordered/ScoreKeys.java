package io.dkv.client.ordered;

import java.util.Arrays;

/**
 * A sorted set's keys in its tree by score: the score as 8 bytes that sort as the doubles do (unsigned, big-endian),
 * then the member, so that elements sort by score and then by member, as redis's skiplist does.
 */
public final class ScoreKeys
{
    public static final int SCORE_BYTES = Long.BYTES;

    private ScoreKeys()
    {
    }

    /** @return the 8 bytes that sort as {@code score} does among doubles (-0 sorts as 0; NaN is refused before). */
    public static byte[] scoreBytes(final double score)
    {
        final long bits = Double.doubleToLongBits(score == 0.0 ? 0.0 : score);
        final long sortable = bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
        final byte[] bytes = new byte[SCORE_BYTES];
        for (int i = 0; i < SCORE_BYTES; i++)
        {
            bytes[i] = (byte)(sortable >>> (56 - 8 * i));
        }
        return bytes;
    }

    /** @return the score of a key (or of 8 bytes made by {@link #scoreBytes}). */
    public static double score(final byte[] key)
    {
        long sortable = 0;
        for (int i = 0; i < SCORE_BYTES; i++)
        {
            sortable = (sortable << 8) | (key[i] & 0xFF);
        }
        final long bits = sortable < 0 ? sortable ^ Long.MIN_VALUE : ~sortable;
        return Double.longBitsToDouble(bits);
    }

    /** @return the key of {@code member} at {@code score}. */
    public static byte[] key(final double score, final byte[] member)
    {
        final byte[] key = Arrays.copyOf(scoreBytes(score), SCORE_BYTES + member.length);
        System.arraycopy(member, 0, key, SCORE_BYTES, member.length);
        return key;
    }

    /** @return the member a key names. */
    public static byte[] member(final byte[] key)
    {
        return Arrays.copyOfRange(key, SCORE_BYTES, key.length);
    }

    /**
     * @return the least byte string above every string that begins with {@code prefix} (the prefix as a number, plus
     * one), or null when there is none (every byte 0xFF).
     */
    public static byte[] after(final byte[] prefix)
    {
        final byte[] next = prefix.clone();
        for (int i = next.length - 1; i >= 0; i--)
        {
            if (next[i] != (byte)0xFF)
            {
                next[i]++;
                return Arrays.copyOf(next, i + 1);
            }
        }
        return null;
    }

    /** @return the least byte string above {@code key} itself: {@code key} and a zero byte. */
    public static byte[] justAfter(final byte[] key)
    {
        return Arrays.copyOf(key, key.length + 1);
    }
}

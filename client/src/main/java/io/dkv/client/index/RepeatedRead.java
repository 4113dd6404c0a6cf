package io.dkv.client.index;

import java.util.Arrays;

/**
 * The miss rule: a key absent from its candidates is answered absent only when two reads in a row saw the same slot
 * words. A slot moving under one read (a split, a racing insert) makes them differ; blocks are never rewritten, so
 * equal words mean nothing changed between the reads. One per operation in flight, reused.
 */
public final class RepeatedRead
{
    private final long[] previous = new long[IndexDecisions.MAX_SLOTS];
    private int previousCount = -1;

    /** Start afresh: the next read confirms nothing. */
    public void forget()
    {
        previousCount = -1;
    }

    /**
     * @return true when the previous read saw exactly these words; else they are kept for the next read to confirm.
     */
    public boolean confirms(final long[] words, final int count)
    {
        if (previousCount == count && Arrays.equals(previous, 0, count, words, 0, count))
        {
            return true;
        }
        System.arraycopy(words, 0, previous, 0, count);
        previousCount = count;
        return false;
    }
}

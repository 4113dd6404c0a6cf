package io.dkv.checker.linear;

import java.util.Arrays;

/**
 * The set of operations a search has linearized, as a bit set that knows its open window and its hash.
 *
 * <p>Determinate operations (numbered from 0 in invocation order) take the first words, indeterminate ones the
 * words after them. A search linearizes determinate operations roughly in order, so their words are all ones below
 * {@link #lo()} and all zeros from {@link #hi()}: only the window between tells one set from another. The hash is
 * the exclusive or of a fixed random number per operation, kept up to date as operations come and go.
 */
final class LinearizedSet
{
    private long[] words = new long[4];
    private int determinate;
    private int determinateWords;
    private int infoWords;
    private int lo;
    private int hi;
    private long hash;

    /** Empty, for so many determinate and indeterminate operations. */
    void reset(final int determinateCount, final int indeterminateCount)
    {
        determinate = determinateCount;
        determinateWords = (determinateCount + 63) >>> 6;
        infoWords = (indeterminateCount + 63) >>> 6;
        lo = 0;
        hi = 0;
        hash = 0;
        if (words.length < determinateWords + infoWords)
        {
            words = new long[determinateWords + infoWords];
        }
        else
        {
            Arrays.fill(words, 0, determinateWords + infoWords, 0L);
        }
    }

    /** @param op an operation not in the set. */
    void add(final int op)
    {
        hash ^= opHash(op);
        if (op < determinate)
        {
            final int word = op >>> 6;
            words[word] |= 1L << op;
            hi = Math.max(hi, word + 1);
            while (lo < determinateWords && words[lo] == fullWord(lo))
            {
                lo++;
            }
        }
        else
        {
            final int bit = op - determinate;
            words[determinateWords + (bit >>> 6)] |= 1L << bit;
        }
    }

    /** @param op an operation in the set. */
    void remove(final int op)
    {
        hash ^= opHash(op);
        if (op < determinate)
        {
            final int word = op >>> 6;
            words[word] &= ~(1L << op);
            lo = Math.min(lo, word);
            while (hi > 0 && words[hi - 1] == 0)
            {
                hi--;
            }
        }
        else
        {
            final int bit = op - determinate;
            words[determinateWords + (bit >>> 6)] &= ~(1L << bit);
        }
    }

    boolean contains(final int op)
    {
        if (op < determinate)
        {
            return (words[op >>> 6] & (1L << op)) != 0;
        }
        final int bit = op - determinate;
        return (words[determinateWords + (bit >>> 6)] & (1L << bit)) != 0;
    }

    long[] words()
    {
        return words;
    }

    /** @return the first determinate word not full (all below are). */
    int lo()
    {
        return lo;
    }

    /** @return one past the last determinate word not empty (all from it are empty); at least {@link #lo()}. */
    int hi()
    {
        return hi;
    }

    /** @return the first word of the indeterminate operations. */
    int infoFrom()
    {
        return determinateWords;
    }

    int infoWords()
    {
        return infoWords;
    }

    long hash()
    {
        return hash;
    }

    /** @return the word with every bit of a determinate operation set. */
    private long fullWord(final int word)
    {
        final int bitsInWord = Math.min(64, determinate - (word << 6));
        return bitsInWord == 64 ? -1L : (1L << bitsInWord) - 1;
    }

    /** A fixed random-looking number per operation. */
    private static long opHash(final int op)
    {
        return mix(op * 0xD1B5_4A32_D192_ED03L + 0x2545_F491_4F6C_DD1DL);
    }

    /** The finalizer of SplitMix64: every input bit moves every output bit. */
    static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }
}

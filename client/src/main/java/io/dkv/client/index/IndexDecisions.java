package io.dkv.client.index;

import io.dkv.format.IndexLayout;
import io.dkv.format.SlotWord;

/**
 * What the index protocol decides from the words of a key's candidate slots, with no I/O: the blocking operations
 * and the completion state machines read the words their own way and decide here.
 *
 * <p>The candidates of a key are the slots of its two combined buckets in address order (at most
 * {@link #MAX_SLOTS}); a set of them is an {@code int} mask whose bit {@code i} is slot {@code i}. The rules, in
 * client/README.md ("Index"):
 * <ul>
 *     <li>a slot may be the key's only when it holds a word of the key's fingerprint; its block decides;</li>
 *     <li>of the key's committed slots the first in address order holds its value (at most one stands);</li>
 *     <li>an insert takes the first empty slot in address order with a tentative word, reads again, and commits
 *     only when no committed slot of the key appeared and its tentative slot is the first of the key's tentative
 *     ones; it clears the later ones first, and yields to an earlier one;</li>
 *     <li>a miss is answered only when two reads in a row saw the same words ({@link RepeatedRead}).</li>
 * </ul>
 */
public final class IndexDecisions
{
    /** The most candidate slots of a key: its two combined buckets. */
    public static final int MAX_SLOTS = 2 * IndexLayout.SLOTS_PER_COMBINED_BUCKET;
    /** No slot fits. */
    public static final int NONE = -1;
    /** More than one slot fits where one was asked for. */
    public static final int SEVERAL = -2;

    /** The insert's tentative slot is no longer among the key's candidates: a split moved them; withdraw it. */
    public static final int INSERT_MOVED = 0;
    /** The tentative slot holds another word: an earlier insert of the key cleared it; read again. */
    public static final int INSERT_CLEARED = 1;
    /** A committed slot of the key appeared: withdraw and write over that one. */
    public static final int INSERT_COMMITTED_SEEN = 2;
    /** An earlier tentative slot of the key stands: withdraw, and let it commit. */
    public static final int INSERT_YIELD = 3;
    /** This tentative slot is the key's first: clear the later ones, then commit it. */
    public static final int INSERT_COMMIT = 4;

    static
    {
        if (MAX_SLOTS > Integer.SIZE - 1)
        {
            throw new IllegalStateException("a mask of " + MAX_SLOTS + " candidate slots does not fit an int");
        }
    }

    private IndexDecisions()
    {
    }

    /** @return the mask of the first {@code count} slots holding a word (committed or tentative) of the fingerprint. */
    public static int ofFingerprint(final long[] words, final int count, final int fingerprint)
    {
        int mask = 0;
        for (int i = 0; i < count; i++)
        {
            final long word = words[i];
            if (!SlotWord.isEmpty(word) && SlotWord.fingerprint(word) == fingerprint)
            {
                mask |= 1 << i;
            }
        }
        return mask;
    }

    /** @return the slots of {@code mask} whose words are committed. */
    public static int committed(final long[] words, final int mask)
    {
        int committed = 0;
        int rest = mask;
        while (rest != 0)
        {
            final int i = Integer.numberOfTrailingZeros(rest);
            rest &= rest - 1;
            if (SlotWord.isCommitted(words[i]))
            {
                committed |= 1 << i;
            }
        }
        return committed;
    }

    /** @return the slots of {@code mask} whose words are tentative (an insert not committed yet). */
    public static int tentative(final long[] words, final int mask)
    {
        return mask & ~committed(words, mask);
    }

    /** @return the slots among the first {@code count} holding exactly {@code word}. */
    public static int holding(final long[] words, final int count, final long word)
    {
        int mask = 0;
        for (int i = 0; i < count; i++)
        {
            if (words[i] == word)
            {
                mask |= 1 << i;
            }
        }
        return mask;
    }

    /** @return the first slot of {@code mask} in address order, or {@link #NONE}. */
    public static int first(final int mask)
    {
        return mask == 0 ? NONE : Integer.numberOfTrailingZeros(mask);
    }

    /** @return the one slot of {@code mask}, {@link #NONE} when it is empty, {@link #SEVERAL} when it holds more. */
    public static int only(final int mask)
    {
        if (mask == 0)
        {
            return NONE;
        }
        return (mask & (mask - 1)) == 0 ? Integer.numberOfTrailingZeros(mask) : SEVERAL;
    }

    /**
     * @return the first committed slot of the fingerprint at or after {@code from}, or {@link #NONE}: where a reader
     * looks for the key's value, one block at a time.
     */
    public static int nextCommitted(final long[] words, final int count, final int from, final int fingerprint)
    {
        for (int i = from; i < count; i++)
        {
            final long word = words[i];
            if (SlotWord.isCommitted(word) && SlotWord.fingerprint(word) == fingerprint)
            {
                return i;
            }
        }
        return NONE;
    }

    /** @return where an insert puts its tentative word: the first empty slot in address order, or {@link #NONE}. */
    public static int firstEmpty(final long[] words, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (SlotWord.isEmpty(words[i]))
            {
                return i;
            }
        }
        return NONE;
    }

    /** @return the index of the slot at {@code slotOffset} among the first {@code count}, or {@link #NONE}. */
    public static int indexOf(final long[] slotOffsets, final int count, final long slotOffset)
    {
        for (int i = 0; i < count; i++)
        {
            if (slotOffsets[i] == slotOffset)
            {
                return i;
            }
        }
        return NONE;
    }

    /** @return the slots of {@code mask} before slot {@code mine} in address order. */
    public static int earlier(final int mask, final int mine)
    {
        return mask & ((1 << mine) - 1);
    }

    /** @return the slots of {@code mask} after slot {@code mine} in address order. */
    public static int later(final int mask, final int mine)
    {
        return mask & -(2 << mine);
    }

    /**
     * The insert rule, after the key's candidates were read again with its tentative word in place.
     *
     * @param mine          the index of the insert's slot among the candidates read again, or {@link #NONE}.
     * @param wordAtMine    the word that read found there.
     * @param tentativeWord the insert's tentative word.
     * @param committedSeen whether a committed slot of the key is among the candidates.
     * @param tentatives    the key's tentative slots among the candidates (the insert's own included or not).
     * @return {@link #INSERT_MOVED}, {@link #INSERT_CLEARED}, {@link #INSERT_COMMITTED_SEEN}, {@link #INSERT_YIELD}
     * or {@link #INSERT_COMMIT}.
     */
    public static int insertVerdict(
        final int mine, final long wordAtMine, final long tentativeWord, final boolean committedSeen,
        final int tentatives)
    {
        if (mine < 0)
        {
            return INSERT_MOVED;
        }
        if (wordAtMine != tentativeWord)
        {
            return INSERT_CLEARED;
        }
        if (committedSeen)
        {
            return INSERT_COMMITTED_SEEN;
        }
        return earlier(tentatives, mine) != 0 ? INSERT_YIELD : INSERT_COMMIT;
    }
}

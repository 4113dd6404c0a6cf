package io.dkv.checker.linear;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinearizedSetTest
{
    private static final int DETERMINATE = 300;
    private static final int INDETERMINATE = 70;

    @Test
    void theWindowAlwaysSeparatesFullWordsBelowFromEmptyWordsAbove()
    {
        // mostly the way a search goes: the lowest operations first, now and then one taken back
        final SearchWalk walk = new SearchWalk(5, DETERMINATE, INDETERMINATE, 4, 8, 10, 3);
        final Map<BitSet, Long> hashes = new HashMap<>();
        for (int step = 0; step < 50_000; step++)
        {
            walk.step();
            assertConsistent(walk.set, walk.expected);
            final Long earlier = hashes.putIfAbsent((BitSet)walk.expected.clone(), walk.set.hash());
            if (earlier != null)
            {
                assertEquals(earlier, walk.set.hash(), "the same set has the same hash");
            }
        }
        assertTrue(hashes.size() > 10_000, "distinct sets " + hashes.size());
        assertNotEquals(1, hashes.values().stream().distinct().count());
    }

    private static void assertConsistent(final LinearizedSet set, final BitSet expected)
    {
        final long[] words = set.words();
        final int determinateWords = (DETERMINATE + 63) / 64;
        for (int op = 0; op < DETERMINATE + INDETERMINATE; op++)
        {
            assertEquals(expected.get(op), set.contains(op), "operation " + op);
        }
        assertTrue(set.lo() <= set.hi() && set.hi() <= determinateWords, "lo " + set.lo() + ", hi " + set.hi());
        for (int word = 0; word < determinateWords; word++)
        {
            final int first = word * 64;
            final int last = Math.min(DETERMINATE, first + 64);
            final boolean full = expected.nextClearBit(first) >= last;
            final boolean empty = expected.nextSetBit(first) < 0 || expected.nextSetBit(first) >= last;
            if (word < set.lo())
            {
                assertTrue(full, "word " + word + " below lo " + set.lo() + " is full");
            }
            if (word == set.lo())
            {
                assertTrue(!full, "word " + word + " at lo is not full");
            }
            if (word >= set.hi())
            {
                assertTrue(empty, "word " + word + " from hi " + set.hi() + " on is empty");
                assertEquals(0, words[word]);
            }
            if (word == set.hi() - 1)
            {
                assertTrue(!empty, "word " + word + " below hi is not empty");
            }
        }
        for (int bit = 0; bit < INDETERMINATE; bit++)
        {
            final long word = words[set.infoFrom() + bit / 64];
            assertEquals(expected.get(DETERMINATE + bit), (word & (1L << bit)) != 0, "indeterminate " + bit);
        }
    }
}

package io.dkv.checker.linear;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

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
        final Random random = new Random(5);
        final LinearizedSet set = new LinearizedSet();
        set.reset(DETERMINATE, INDETERMINATE);
        final BitSet expected = new BitSet();
        final Map<BitSet, Long> hashes = new HashMap<>();
        for (int step = 0; step < 50_000; step++)
        {
            // mostly the way a search goes: the lowest operations first, now and then one taken back
            final int op = random.nextInt(4) == 0 ? random.nextInt(DETERMINATE + INDETERMINATE) :
                Math.min(DETERMINATE - 1, expected.nextClearBit(0) + random.nextInt(8));
            if (expected.get(op))
            {
                set.remove(op);
                expected.clear(op);
            }
            else
            {
                set.add(op);
                expected.set(op);
            }
            if (expected.cardinality() > DETERMINATE - 10)
            {
                for (int i = 0; i < DETERMINATE + INDETERMINATE; i++)
                {
                    if (expected.get(i) && random.nextInt(3) == 0)
                    {
                        set.remove(i);
                        expected.clear(i);
                    }
                }
            }
            assertConsistent(set, expected);
            final Long earlier = hashes.putIfAbsent((BitSet) expected.clone(), set.hash());
            if (earlier != null)
            {
                assertEquals(earlier, set.hash(), "the same set has the same hash");
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

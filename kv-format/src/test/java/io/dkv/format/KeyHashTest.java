package io.dkv.format;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every client places a key the same way, and keys spread evenly over groups and sides.
 */
class KeyHashTest
{
    @Test
    void theHashDependsOnEveryByteAndTheLength()
    {
        final byte[] key = "abcdefghijk".getBytes(StandardCharsets.UTF_8);
        final long hash = KeyHash.hash(key);
        assertEquals(hash, KeyHash.hash(key.clone()));
        for (int i = 0; i < key.length; i++)
        {
            final byte[] changed = key.clone();
            changed[i] ^= 1;
            assertNotEquals(hash, KeyHash.hash(changed), "byte " + i);
        }
        assertNotEquals(KeyHash.hash(new byte[]{0}), KeyHash.hash(new byte[]{0, 0}));
    }

    @Test
    void aKeyInsideALargerArrayHashesAsTheKeyAlone()
    {
        final byte[] arena = "..key-1.longer-key-of-27-bytes..".getBytes(StandardCharsets.UTF_8);
        for (int from = 0; from < arena.length; from++)
        {
            for (int to = from; to <= arena.length; to++)
            {
                final byte[] key = Arrays.copyOfRange(arena, from, to);
                assertEquals(KeyHash.hash(key), KeyHash.hash(arena, from, to - from), "bytes " + from + ".." + to);
            }
        }
    }

    @Test
    void keysSpreadEvenlyOverGroupsAndTheTwoCandidatesDiffer()
    {
        final int groups = 64;
        final int keys = 64_000;
        final int[] counts = new int[groups];
        int sameGroup = 0;
        int sideOne = 0;
        for (int i = 0; i < keys; i++)
        {
            final long hash = KeyHash.hash(("key-" + i).getBytes(StandardCharsets.UTF_8));
            final int first = KeyHash.group(hash, 0, groups);
            counts[first]++;
            if (first == KeyHash.group(hash, 1, groups))
            {
                sameGroup++;
            }
            sideOne += KeyHash.side(hash, 0);
        }
        for (int g = 0; g < groups; g++)
        {
            assertTrue(Math.abs(counts[g] - keys / groups) < keys / groups / 5, "group " + g + " got " + counts[g]);
        }
        assertTrue(sameGroup < keys / groups * 2, sameGroup + " keys had both candidates in one group");
        assertTrue(Math.abs(sideOne - keys / 2) < keys / 20, sideOne + " of " + keys + " on side 1");
    }
}

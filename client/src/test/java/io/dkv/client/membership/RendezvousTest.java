package io.dkv.client.membership;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A key's replicas are its nodes of highest weight, highest first: the first is the node a single
 * copy goes to, and a node joining or leaving changes a key's replicas only where it ranks.
 */
class RendezvousTest
{
    private static final long[] NODES = {101, 102, 103, 104, 105};

    @Test
    void theFirstReplicaIsTheNodeOneCopyGoesTo()
    {
        final SplittableRandom random = new SplittableRandom(16);
        final int[] replicas = new int[3];
        for (int k = 0; k < 10_000; k++)
        {
            final long hash = random.nextLong();
            assertEquals(3, Rendezvous.top(hash, NODES, 3, replicas));
            assertEquals(Rendezvous.choose(hash, NODES), replicas[0], "key hash " + hash);
        }
    }

    @Test
    void replicasAreTheNodesInOrderOfWeight()
    {
        final SplittableRandom random = new SplittableRandom(17);
        for (int count = 1; count <= NODES.length + 1; count++)
        {
            final int[] replicas = new int[count];
            for (int k = 0; k < 2_000; k++)
            {
                final long hash = random.nextLong();
                final int filled = Rendezvous.top(hash, NODES, count, replicas);
                assertEquals(Math.min(count, NODES.length), filled);
                final int[] expected = bySorting(hash).limit(filled).toArray();
                assertArrayEquals(expected, Arrays.copyOf(replicas, filled), "key hash " + hash + ", r=" + count);
            }
        }
    }

    @Test
    void removingANodeShiftsOnlyTheKeysItHeld()
    {
        final long[] fewer = {101, 102, 104, 105};
        final SplittableRandom random = new SplittableRandom(18);
        final int[] before = new int[2];
        final int[] after = new int[2];
        for (int k = 0; k < 10_000; k++)
        {
            final long hash = random.nextLong();
            Rendezvous.top(hash, NODES, 2, before);
            Rendezvous.top(hash, fewer, 2, after);
            if (NODES[before[0]] != 103 && NODES[before[1]] != 103)
            {
                assertEquals(NODES[before[0]], fewer[after[0]]);
                assertEquals(NODES[before[1]], fewer[after[1]]);
            }
        }
    }

    /** The order by another route: every node, sorted by the weight {@code choose} maximises. */
    private static IntStream bySorting(final long hash)
    {
        return IntStream.range(0, NODES.length).boxed()
            .sorted(Comparator.comparingInt(i -> rank(hash, i)))
            .mapToInt(Integer::intValue);
    }

    private static int rank(final long hash, final int node)
    {
        // how many nodes choose would still prefer once the better ones are gone
        long[] remaining = NODES.clone();
        for (int rank = 0; ; rank++)
        {
            final int best = Rendezvous.choose(hash, remaining);
            if (remaining[best] == NODES[node])
            {
                return rank;
            }
            final long gone = remaining[best];
            remaining = Arrays.stream(remaining).filter(id -> id != gone).toArray();
        }
    }
}

package io.dkv.load.bench.membership;

import io.dkv.client.KvClient;

import java.util.Arrays;

/**
 * Where each key's copies are placed, as a client places them: taken before and after a change, the keys whose
 * memory nodes differ are the keys it moved, whatever its driver found already in place.
 */
final class Placements
{
    private final int replicas;
    private final long[] nodes;

    private Placements(final int replicas, final long[] nodes)
    {
        this.replicas = replicas;
        this.nodes = nodes;
    }

    /**
     * @param client a client whose view of the membership is the one to take: connected after the change ended, or
     *               one that has seen no change yet.
     */
    static Placements of(final KvClient client, final KeySpace keySpace)
    {
        final int replicas = client.replicas();
        final long[] nodes = new long[keySpace.keys() * replicas];
        for (int index = 0; index < keySpace.keys(); index++)
        {
            final long[] replicasOf = client.replicasOf(keySpace.key(index));
            if (replicasOf.length != replicas)
            {
                throw new IllegalStateException("key " + index + " is placed on " + Arrays.toString(replicasOf) +
                    ": " + replicas + " copies expected, every memory node up");
            }
            // which nodes hold a copy, not in which order: a new head alone moves no bytes
            Arrays.sort(replicasOf);
            System.arraycopy(replicasOf, 0, nodes, index * replicas, replicas);
        }
        return new Placements(replicas, nodes);
    }

    /**
     * @return copies placed on a memory node in {@code after} that did not hold one in this: what the change between
     * the two moved (at one copy a key each).
     */
    long copiesMovedTo(final Placements after)
    {
        if (after.nodes.length != nodes.length)
        {
            throw new IllegalArgumentException("placements of " + nodes.length / replicas + " keys at " + replicas +
                " copies against " + after.nodes.length / after.replicas + " keys at " + after.replicas);
        }
        long moved = 0;
        for (int from = 0; from < nodes.length; from += replicas)
        {
            for (int r = 0; r < replicas; r++)
            {
                if (Arrays.binarySearch(nodes, from, from + replicas, after.nodes[from + r]) < 0)
                {
                    moved++;
                }
            }
        }
        return moved;
    }
}

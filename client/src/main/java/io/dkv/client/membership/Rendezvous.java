package io.dkv.client.membership;

/**
 * Rendezvous (highest random weight) hashing: a key goes to the node whose weight for it is the
 * highest, so that adding or removing a node moves only the keys that go to or came from it.
 */
public final class Rendezvous
{
    private Rendezvous()
    {
    }

    /** @return the index in {@code nodeIds} of the key's node. */
    public static int choose(final long keyHash, final long[] nodeIds)
    {
        int best = 0;
        long bestWeight = Long.MIN_VALUE;
        for (int i = 0; i < nodeIds.length; i++)
        {
            final long weight = weight(keyHash, nodeIds[i]);
            if (weight > bestWeight || (weight == bestWeight && nodeIds[i] < nodeIds[best]))
            {
                best = i;
                bestWeight = weight;
            }
        }
        return best;
    }

    /**
     * The key's replicas: the {@code count} nodes of highest weight for it, highest first (the first
     * is {@link #choose}'s). Placement is over the members, so a key's replicas change only when the
     * members do.
     *
     * @param replicas filled with indices into {@code nodeIds}, in placement order.
     * @return how many were filled: {@code min(count, nodeIds.length)}.
     */
    public static int top(final long keyHash, final long[] nodeIds, final int count, final int[] replicas)
    {
        final int n = Math.min(count, nodeIds.length);
        int filled = 0;
        for (int i = 0; i < nodeIds.length; i++)
        {
            final long weight = weight(keyHash, nodeIds[i]);
            int at = filled;
            // weights are recomputed rather than kept: a few multiplications, and nothing allocated
            while (at > 0 && before(weight, nodeIds[i], weight(keyHash, nodeIds[replicas[at - 1]]),
                nodeIds[replicas[at - 1]]))
            {
                at--;
            }
            if (at >= n)
            {
                continue;
            }
            for (int j = Math.min(filled, n - 1); j > at; j--)
            {
                replicas[j] = replicas[j - 1];
            }
            replicas[at] = i;
            filled = Math.min(filled + 1, n);
        }
        return n;
    }

    private static boolean before(final long weight, final long nodeId, final long otherWeight, final long otherId)
    {
        return weight > otherWeight || (weight == otherWeight && nodeId < otherId);
    }

    private static long weight(final long keyHash, final long nodeId)
    {
        long z = keyHash ^ (nodeId * 0x9e3779b97f4a7c15L);
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}

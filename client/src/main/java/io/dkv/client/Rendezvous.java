package io.dkv.client;

/**
 * Rendezvous (highest random weight) hashing: a key goes to the node whose weight for it is the
 * highest, so that adding or removing a node moves only the keys that go to or came from it.
 */
final class Rendezvous
{
    private Rendezvous()
    {
    }

    /** @return the index in {@code nodeIds} of the key's node. */
    static int choose(final long keyHash, final long[] nodeIds)
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

    private static long weight(final long keyHash, final long nodeId)
    {
        long z = keyHash ^ (nodeId * 0x9e3779b97f4a7c15L);
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}

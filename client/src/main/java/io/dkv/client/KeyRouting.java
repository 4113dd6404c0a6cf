package io.dkv.client;

import io.dkv.client.membership.MembershipView;
import io.dkv.client.node.NodeLinks;
import io.dkv.client.replication.ReplicaChain;

/**
 * Where a key's operation goes now: to the one node of a key with one copy while no membership change moves keys
 * (the single-node protocol), or over its replicas' chain ({@link ReplicaChain}) otherwise; and which node alone
 * answers a read of it.
 */
final class KeyRouting
{
    private final MembershipView membership;
    private final ReplicaChain chain;
    private final NodeLinks links;
    private final int[] plainPlaced = new int[1];

    KeyRouting(final MembershipView membership, final ReplicaChain chain, final NodeLinks links)
    {
        this.membership = membership;
        this.chain = chain;
        this.links = links;
    }

    /**
     * @return true when the key has one copy and no membership change moves keys: one node's slot is the key's, and
     * the single-copy protocol runs. Otherwise the chain of {@link ReplicaChain} does.
     */
    boolean plain()
    {
        return membership.replicas() == 1 && !membership.placement().changing();
    }

    int node(final long hash)
    {
        membership.refreshIfDue();
        // before, not after: a membership read just now may have begun a change, and until this operation (which
        // began with none) ends, the key is where it was; the change waits out operations that began before it
        if (membership.placement().before(hash, 1, plainPlaced) == 0)
        {
            throw new KvException("no memory node holds keys: the membership places none (" +
                membership.placement().describe(0) + ")");
        }
        return links.use(plainPlaced[0]);
    }

    /** @return the node whose copy alone answers a read of the key now, or -1 when it is moving between two. */
    int readsAt(final long hash, final byte[] key)
    {
        if (plain())
        {
            return node(hash);
        }
        final long epoch = membership.epoch();
        final int head = links.use(chain.headNow(hash, key));
        return chain.switchHead() < 0 && membership.epoch() == epoch ? head : -1;
    }
}

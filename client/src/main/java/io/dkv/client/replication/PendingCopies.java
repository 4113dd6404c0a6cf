package io.dkv.client.replication;

import io.dkv.client.index.IndexProbe;
import io.dkv.client.index.KeyState;
import io.dkv.client.membership.MembershipView;
import io.dkv.format.KeyHash;
import io.dkv.format.SlotWord;
import io.dkv.raas.Membership;

/**
 * Under durability sync, a reader (or a writer reading) that meets the key's head block pending settles the write on
 * every other replica that holds it pending before the head's node settles it (kv-memory-node/README.md, "Restarting
 * from disk"): a value answered from the head is then on the disk of every replica that holds it, so whichever
 * serves last when every copy is lost brings it back. Settling the head alone lost it when the tail, never told,
 * served last (`RecoveryModelTest`'s HEAD_TOLD_LAST). Reads each replica with a probe of its own, so that the
 * caller's block buffer, which holds the head's block, is kept.
 */
public final class PendingCopies implements IndexProbe.OtherCopies
{
    private final MembershipView membership;
    private final IndexProbe probe;
    private final int[] placed;
    private final int[] placedAfter;

    /** @param probe a probe of its own over the thread's links, with no {@link IndexProbe.OtherCopies} of its own. */
    public PendingCopies(final MembershipView membership, final IndexProbe probe)
    {
        this.membership = membership;
        this.probe = probe;
        this.placed = new int[Math.max(1, membership.replicas())];
        this.placedAfter = new int[Math.max(1, membership.replicas())];
    }

    public boolean settle(final int head, final byte[] key, final long writeId)
    {
        final long hash = KeyHash.hash(key);
        final MembershipView.Placement placement = membership.placement();
        final int r = placed.length;
        final int before = placement.before(hash, r, placed);
        // a membership change's placement after it too: a write may be on members of either
        final int after = placement.after(hash, r, placedAfter);
        for (int p = 0; p < before + after; p++)
        {
            final int node = p < before ? placed[p] : placedAfter[p - before];
            if (p >= before && contains(placed, before, node))
            {
                continue;
            }
            final int state = placement.state(node);
            if (node == head || state == Membership.DOWN || state == 0)
            {
                continue;
            }
            final KeyState copy = probe.readKey(node, hash, key);
            // another write there came after this one, whose writer started from it settled; none: a later delete
            if (copy.word == SlotWord.EMPTY || copy.writeId != writeId || !copy.pending)
            {
                continue;
            }
            if (!probe.settled(node, SlotWord.blockOffset(copy.word), writeId, key))
            {
                return false;
            }
        }
        return true;
    }

    private static boolean contains(final int[] nodes, final int count, final int node)
    {
        for (int i = 0; i < count; i++)
        {
            if (nodes[i] == node)
            {
                return true;
            }
        }
        return false;
    }
}

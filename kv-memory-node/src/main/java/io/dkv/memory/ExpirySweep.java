package io.dkv.memory;

import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;
import org.agrona.concurrent.EpochClock;

import java.util.List;

/**
 * Empties the slots of keys whose expiry has passed, so that a key nobody reads again after it
 * expired still gives its block (and in time its chunk) back: clients treat such a slot as a miss
 * and empty it when they come across it, this finds the rest. Only slots whose word says their
 * block expires have their block looked at. One caller: the request server's thread, which alone
 * reclaims chunks, so no block it reads is reused under it. Where the node keeps versions, a tombstone stays until
 * the cluster's durable epoch D reached its epoch: a write after the delete then finds it and names it as the
 * version it replaced, at an epoch at least the delete's, so no epoch of the key holds two versions that neither
 * names (kv-memory-node/README.md, "Coming back"); once D passed it, every writer's epoch is above it anyway.
 */
final class ExpirySweep
{
    private final LocalIndex index;
    private final EpochClock clock;
    private final long intervalNanos;
    private final boolean holdTombstones;
    private long nextNanos;
    /** Written here only; read by anyone who asks. */
    private volatile long keysExpired;

    /**
     * @param holdTombstones the node keeps versions: a tombstone stays until D reached its epoch.
     */
    ExpirySweep(final LocalIndex index, final EpochClock clock, final long intervalNanos, final long nowNanos,
        final boolean holdTombstones)
    {
        this.index = index;
        this.holdTombstones = holdTombstones;
        this.clock = clock;
        this.intervalNanos = intervalNanos;
        this.nextNanos = nowNanos + intervalNanos;
    }

    /**
     * Walk the index when the interval has passed since the last walk.
     *
     * @param removedKeys gets the key of each slot emptied, for the key store (null: the node keeps none).
     * @return slots emptied.
     */
    int sweep(final long nowNanos, final List<byte[]> removedKeys)
    {
        if (nowNanos - nextNanos < 0)
        {
            return 0;
        }
        nextNanos = nowNanos + intervalNanos;
        final long nowMillis = clock.time();
        final int[] count = new int[1];
        index.forEachSlot((slot, word) ->
        {
            // a sealed slot stays: it tells the writers of a moving key where its writes are decided, and the next
            // change's fill clears the seal (client/README.md, "The handover")
            if (!SlotWord.isCommitted(word) || !SlotWord.expires(word) || SlotWord.isSealed(word))
            {
                return;
            }
            final long block = SlotWord.blockOffset(word);
            final long expireAt = index.expireAtOf(block);
            if (holdTombstones && expireAt == KvBlockLayout.TOMBSTONE &&
                index.epochOf(block) > index.clusterDurableEpoch())
            {
                return;
            }
            // a CAS, as a client's: a write that replaced the slot since it was read stands. A pending block (a
            // tombstone whose delete is not on disk yet) stays until it is settled: emptied now, its miss would be
            // read with nothing left to settle, and the key could come back from disk after a crash
            if (KvBlockLayout.isExpired(expireAt, nowMillis) &&
                !KvBlockLayout.isPending(index.heap(), block) && index.clearSlot(slot, word))
            {
                count[0]++;
                if (removedKeys != null)
                {
                    removedKeys.add(index.keyAt(block));
                }
            }
        });
        keysExpired = keysExpired + count[0];
        return count[0];
    }

    long keysExpired()
    {
        return keysExpired;
    }
}

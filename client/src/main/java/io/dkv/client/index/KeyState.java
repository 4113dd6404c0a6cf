package io.dkv.client.index;

import io.dkv.format.KvBlockLayout;
import io.dkv.format.SlotWord;

/**
 * What a probe of a key at one node found ({@link IndexProbe#scan}): its committed slot, if any, and the write that
 * slot names; its tentative slots (inserts not committed yet). One per probe, filled anew by each scan: read it
 * before the probe reads again.
 */
public final class KeyState
{
    /** The committed slot's index among the candidates read, or -1 when the key has none there. */
    int committedAt;
    /** The committed slot's offset in the index region, or -1. */
    public long slot;
    /** The committed slot's word, or {@link SlotWord#EMPTY}. */
    public long word;
    /** The write the committed slot's block holds, or {@link KvBlockLayout#NO_WRITE}. */
    public long writeId;
    /** The committed block's durable epoch, or {@link KvBlockLayout#NO_EPOCH}. */
    public long epoch;
    /** The committed block's expiry time, or {@link KvBlockLayout#NEVER}. */
    public long expireAt;
    /** Whether the committed block was written pending: its node may not have it on disk yet. */
    public boolean pending;
    /** The key's tentative slots among the candidates read, as a mask (bit i: candidate i). */
    int tentatives;

    void clear()
    {
        committedAt = -1;
        slot = -1;
        word = SlotWord.EMPTY;
        writeId = KvBlockLayout.NO_WRITE;
        epoch = KvBlockLayout.NO_EPOCH;
        expireAt = KvBlockLayout.NEVER;
        pending = false;
        tentatives = 0;
    }

    /** @return true when a committed slot of the key was found (its value may have expired). */
    public boolean committed()
    {
        return committedAt >= 0;
    }

    /** @return true when the committed slot's block has expired by {@code nowMillis}. */
    public boolean expiredAt(final long nowMillis)
    {
        return KvBlockLayout.isExpired(expireAt, nowMillis);
    }

    /**
     * @return the write the key's value is, or {@link KvBlockLayout#NO_WRITE} when it has none at {@code nowMillis}
     * (no committed slot, or an expired one).
     */
    public long liveWriteId(final long nowMillis)
    {
        return committed() && !expiredAt(nowMillis) ? writeId : KvBlockLayout.NO_WRITE;
    }
}

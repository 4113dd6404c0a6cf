package io.dkv.client;

import io.dkv.format.ValueKind;

/**
 * A value as {@link KvClient#getVersioned} read it, with its version: the index slot that pointed
 * at it and the slot's word then. Blocks are written out of place and never rewritten, so the word
 * names the write that put the value there; {@link KvClient#compareAndSetVersion} swaps the slot
 * from that word, with no second read of the key.
 *
 * <p>A word could name another write only once its block has been reclaimed and reused, which the
 * memory node does a grace period after the block was replaced; a version is therefore compared as
 * a word only while younger than the grace period less the client's operation timeout, and by its
 * value after that.
 *
 * <p>It also says when the value expires ({@link #expireAtMillis()}), so that a write that keeps
 * the key's expiry (redis's KEEPTTL, INCR) or changes only that (EXPIRE, PERSIST) is one
 * {@link KvClient#compareAndSetVersion(byte[], Versioned, byte[], long)}.
 *
 * <p>Applications read {@link #value()} and {@link #expireAtMillis()}. The slot, word and write id are public for the
 * client's own packages (the index protocol, replication, the asynchronous path), which compare them; they mean
 * nothing outside the store.
 */
public final class Versioned
{
    private final byte[] value;
    /** The block's expiry word: its expiry time and its kind ({@code ValueKind}). */
    private final long expiryWord;
    final long nodeId;
    final long nodeEpoch;
    public final long slotOffset;
    public final long word;
    final long readNanos;
    /** The write the value came from, the same on every replica: what a replicated version is compared by. */
    public final long writeId;

    public Versioned(
        final byte[] value,
        final long expiryWord,
        final long nodeId,
        final long nodeEpoch,
        final long slotOffset,
        final long word,
        final long readNanos,
        final long writeId)
    {
        this.writeId = writeId;
        this.value = value;
        this.expiryWord = expiryWord;
        this.nodeId = nodeId;
        this.nodeEpoch = nodeEpoch;
        this.slotOffset = slotOffset;
        this.word = word;
        this.readNanos = readNanos;
    }

    /** @return the value read; the array is the caller's. */
    public byte[] value()
    {
        return value;
    }

    /** @return epoch milliseconds from which the value is gone, or {@link KvClient#NO_EXPIRY}. */
    public long expireAtMillis()
    {
        return ValueKind.expiryOf(expiryWord);
    }

    /**
     * @return what the key holds ({@link ValueKind}): {@link ValueKind#STRING} for every value written by
     * {@code put}; a collection's header otherwise.
     */
    public int kind()
    {
        return ValueKind.kindOf(expiryWord);
    }

    /** @return the expiry time and the kind as the block keeps them: what a write that keeps both passes on. */
    public long expiryWord()
    {
        return expiryWord;
    }

    /**
     * @return true when the word still names this version on that node: the same incarnation of it,
     * and young enough that its block cannot have been reused.
     */
    public boolean comparableAsWord(final long nodeId, final long nodeEpoch, final long nowNanos,
        final long lifetimeNanos)
    {
        return this.nodeId == nodeId && this.nodeEpoch == nodeEpoch && nowNanos - readNanos < lifetimeNanos;
    }

    public String toString()
    {
        return "Versioned{" + value.length + " bytes, node " + nodeId + ", slot at index offset " + slotOffset +
            ", word 0x" + Long.toHexString(word) +
            (kind() == ValueKind.STRING ? "" : ", " + ValueKind.name(kind())) +
            (expireAtMillis() == KvClient.NO_EXPIRY ? "" : ", expires at " + expireAtMillis()) + "}";
    }
}

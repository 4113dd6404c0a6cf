package io.dkv.client.txn;

import io.dkv.client.Versioned;

import java.util.concurrent.CompletableFuture;

/**
 * The raw single-key operations a transaction's commit is made of: {@link RawKeys}', and swaps carried by completions
 * for the parallel commit (client/README.md, "Parallel commit").
 */
public interface CommitKeys extends RawKeys
{
    /**
     * Make ready a swap of the key to {@code value} (expiring at {@code expireAt}: a value's expiry, or
     * {@code KvBlockLayout.INTENT}, or {@code TOMBSTONE} with an empty value), carried by completions once started.
     *
     * @return null where completions cannot carry it (too many in flight on this thread, a key moving, a block too
     * large): the caller swaps synchronously, by {@link #swapExact}.
     */
    PreparedSwap prepareSwap(byte[] key, byte[] value, long expireAt);

    /**
     * Wait on this thread for what a {@link PreparedSwap} started, delivering completions meanwhile as a synchronous
     * request's wait does.
     *
     * @return the future's value.
     * @throws java.util.concurrent.CompletionException as {@link CompletableFuture#join} does.
     */
    <T> T await(CompletableFuture<T> future);

    /**
     * Read the key, of any kind and reserved keys too, a transaction's intent on it resolved first (as
     * {@code KvClient.getVersioned}), carried by completions: many such reads may be in flight at once.
     *
     * @return completes with the version read, or null when the key has no value.
     */
    CompletableFuture<Versioned> readAsync(byte[] key);

    /**
     * As {@link RawKeys#read}, carried by completions: the key's block as it is, a transaction's intent too, with no
     * intent resolved or waited for.
     *
     * @return completes with the version read, or null when the key has no value.
     */
    CompletableFuture<Versioned> readRawAsync(byte[] key);

    /**
     * @param freeing what the calling thread writes from now on frees memory (a transaction of deletes): where a
     *                memory node is full, its blocks may take the reserve the node keeps for deletes.
     * @return whether it was said before, for the caller to put back.
     */
    boolean freeing(boolean freeing);
}

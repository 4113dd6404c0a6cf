package io.dkv.client.txn;

import io.dkv.client.KvException;
import io.dkv.format.KvBlockLayout;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Swaps of a commit carried by completions that both commits make: a key to a value or a tombstone, and aborts. */
final class CarriedSwaps
{
    private static final byte[] NO_VALUE = new byte[0];

    private CarriedSwaps()
    {
    }

    /**
     * As {@link CommitKeys#prepareSwap}, to a plain value, or to a tombstone where {@code value} is null (as
     * {@link IntentResolver#writeValue} writes).
     */
    static PreparedSwap prepareValue(final CommitKeys keys, final byte[] key, final byte[] value, final long expireAt)
    {
        return value == null ? keys.prepareSwap(key, NO_VALUE, KvBlockLayout.TOMBSTONE) :
            keys.prepareSwap(key, value, expireAt);
    }

    /**
     * Each entry's intent swapped back to its prior value, all at once, from the version it was placed with; one the
     * completions cannot carry is swapped on this thread. Best effort: whoever meets an intent left rolls it back.
     *
     * @return completes once every swap answered, whatever it came to.
     */
    static CompletableFuture<Void> rollBack(final CommitKeys keys, final IntentResolver resolver,
        final List<TxnEntry> entries)
    {
        final CompletableFuture<?>[] answered = new CompletableFuture<?>[entries.size()];
        for (int n = 0; n < answered.length; n++)
        {
            final TxnEntry entry = entries.get(n);
            final PreparedSwap swap = prepareValue(keys, entry.key, entry.prior(), entry.priorExpireAt());
            if (swap != null)
            {
                answered[n] = swap.start(entry.placed).handle((version, failure) -> null);
                continue;
            }
            try
            {
                resolver.writeValue(entry.key, entry.placed, entry.prior(), entry.priorExpireAt());
            }
            catch (final KvException ex)
            {
                // whoever meets it rolls it back, as after the synchronous commit's abort
            }
            answered[n] = CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(answered);
    }
}

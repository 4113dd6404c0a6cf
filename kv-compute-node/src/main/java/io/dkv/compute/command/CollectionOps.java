package io.dkv.compute.command;

import io.dkv.client.collection.Collection;
import io.dkv.compute.store.KeyStore;

import java.util.function.BiPredicate;
import java.util.function.Function;

/** What the hash and set commands do alike: open a collection in the store's transaction, read it, change elements. */
final class CollectionOps
{
    private CollectionOps()
    {
    }

    /** @return the collection of this kind at {@code key}, in the transaction {@code store} runs in. */
    static Collection open(final KeyStore store, final byte[] key, final int kind)
    {
        return Collection.open(store.transaction(), key, kind, store.segmentBytes());
    }

    /** @return what {@code body} makes of the collection at {@code key}, read in one transaction. */
    static <T> T read(final KeyStore store, final byte[] key, final int kind, final Function<Collection, T> body)
    {
        return store.atomically(tx -> body.apply(open(tx, key, kind)));
    }

    /**
     * HDEL, SADD, SREM: {@code change} applied to the collection at {@code args[1]} for each of {@code args[2..]}, in
     * one transaction.
     *
     * @return how many of them changed it.
     */
    static long countChanges(final KeyStore store, final byte[][] args, final int kind,
        final BiPredicate<Collection, byte[]> change)
    {
        return store.atomically(tx ->
        {
            final Collection collection = open(tx, args[1], kind);
            long changed = 0;
            for (int i = 2; i < args.length; i++)
            {
                changed += change.test(collection, args[i]) ? 1 : 0;
            }
            collection.write();
            return changed;
        });
    }
}

package io.dkv.compute.store;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;
import org.agrona.concurrent.EpochClock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The store through the embedded client, each call its own single-key operation (the commands' fast paths, as
 * before transactions existed); what must hold across keys runs as a client transaction ({@link #atomically}).
 */
public final class ClientKeyStore implements KeyStore
{
    /** An expiry time long past, that no clock reads as the future; never 0, which is "no expiry". */
    private static final long LONG_AGO = 1;
    private static final byte[] NO_VALUE = new byte[0];

    private final KvClient client;

    public ClientKeyStore(final KvClient client)
    {
        this.client = client;
    }

    public byte[] get(final byte[] key)
    {
        return client.get(key);
    }

    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return client.getAsync(key);
    }

    public CompletableFuture<Versioned> getVersionedAsync(final byte[] key)
    {
        return client.getVersionedAsync(key);
    }

    public CompletableFuture<Boolean> compareAndSetAsync(final byte[] key, final Versioned current, final byte[] value,
        final long expireAtMillis)
    {
        return current == null ? client.compareAndSetAsync(key, null, value, KeyStore.storable(expireAtMillis)) :
            client.compareAndSetVersionAsync(key, current, value, KeyStore.storable(expireAtMillis));
    }

    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        return client.putAsync(key, value, KeyStore.storable(expireAtMillis));
    }

    /**
     * A client transaction carried by completions ({@link KvClient#transactAsync}): the keys read all at once
     * ({@link Transaction#readAllAsync}), and where each holds a string or nothing, the puts and the commit, which
     * for keys that each held a value with no expiry is the parallel commit, its intents swapped in all at once.
     */
    public CompletableFuture<Long> putAllAsync(final List<byte[]> keys, final List<byte[]> values,
        final Executor poster)
    {
        return client.transactAsync(tx -> tx.readAllAsync(keys).thenApply(ignored ->
        {
            for (final byte[] key : keys)
            {
                final LogicalValue held = tx.read(key);
                if (held != null && held.kind() != ValueKind.STRING)
                {
                    // its segments or pieces go with it, which takes reads of its own (nothing is written: the
                    // commit only checks the reads again)
                    return NOT_CARRIED;
                }
            }
            for (int i = 0; i < keys.size(); i++)
            {
                tx.put(keys.get(i), values.get(i), KeyStore.storable(KvClient.NO_EXPIRY));
            }
            return 1L;
        }), poster);
    }

    public boolean replays()
    {
        return true;
    }

    /** The client's replayed transaction ({@link KvClient#transactReplayed}), {@code body} given its store. */
    public <T> CompletableFuture<T> replayed(final Function<KeyStore, T> body, final Executor poster)
    {
        return client.transactReplayed(tx -> body.apply(
            new TransactionKeyStore(tx, client.epochClock(), client.collectionSegmentBytes(), true)), poster);
    }

    /** As {@link #putAllAsync}; a key of any kind that has a value answers 0, the reads then checked again. */
    public CompletableFuture<Long> putAllIfAbsentAsync(final List<byte[]> keys, final List<byte[]> values,
        final Executor poster)
    {
        return client.transactAsync(tx -> tx.readAllAsync(keys).thenApply(ignored ->
        {
            for (final byte[] key : keys)
            {
                if (tx.read(key) != null)
                {
                    return 0L;
                }
            }
            for (int i = 0; i < keys.size(); i++)
            {
                tx.put(keys.get(i), values.get(i), KeyStore.storable(KvClient.NO_EXPIRY));
            }
            return 1L;
        }), poster);
    }

    /**
     * As {@link #putAllAsync}: the keys read all at once and, where each holds a string or nothing, those that hold
     * one deleted. Keys that each held a value with no expiry commit in parallel; a key with none is read again at
     * the commit, which is then the protocol's.
     */
    public CompletableFuture<Long> deleteAllAsync(final List<byte[]> keys, final Executor poster)
    {
        return client.transactAsync(tx -> tx.readAllAsync(keys).thenApply(ignored ->
        {
            for (final byte[] key : keys)
            {
                final LogicalValue held = tx.read(key);
                if (held != null && held.kind() != ValueKind.STRING)
                {
                    return NOT_CARRIED;
                }
            }
            long deleted = 0;
            for (final byte[] key : keys)
            {
                // a key with no value stays a read, checked again at the commit: no intent is placed on it
                if (tx.get(key) != null)
                {
                    tx.delete(key);
                    deleted++;
                }
            }
            return deleted;
        }), poster);
    }

    /** The client's delete carried by completions: a collection or a string in pieces fails it (WrongKind). */
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return client.deleteAsync(key);
    }

    /**
     * One key is one read. Several are read in one read-only transaction (each read, then each checked again), which
     * costs two reads a key where the client's multiGet costs about one lookup for all, but multiGet reads the keys
     * one after another and may see one key before a transaction (MSET) and another after it: redis's MGET never sees
     * part of an MSET.
     */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        if (keys.size() != 1)
        {
            return atomically(store -> store.multiGet(keys));
        }
        final List<byte[]> values = new java.util.ArrayList<>(client.multiGetMarking(keys));
        values.replaceAll(value -> value == KvClient.COLLECTION ? null : value);
        return values;
    }

    public Versioned readAny(final byte[] key)
    {
        return client.getVersioned(key);
    }

    public long exists(final List<byte[]> keys)
    {
        return keys.size() == 1 ? (client.getVersioned(keys.getFirst()) != null ? 1 : 0) :
            atomically(store -> store.exists(keys));
    }

    public Versioned getVersioned(final byte[] key)
    {
        final Versioned read = client.getVersioned(key);
        if (read != null)
        {
            WrongKindException.require(key, read.expiryWord(), ValueKind.STRING);
        }
        return read;
    }

    /** The client's put replaces a string only: a collection goes with its segments, in a transaction. */
    public void put(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        try
        {
            client.put(key, value, KeyStore.storable(expireAtMillis));
        }
        catch (final WrongKindException ex)
        {
            atomically(store ->
            {
                store.put(key, value, expireAtMillis);
                return null;
            });
        }
    }

    public boolean compareAndSet(final byte[] key, final byte[] expected, final byte[] value,
        final long expireAtMillis)
    {
        return client.compareAndSet(key, expected, value, KeyStore.storable(expireAtMillis));
    }

    public boolean compareAndSetVersion(final byte[] key, final Versioned expected, final byte[] value,
        final long expireAtMillis)
    {
        return client.compareAndSetVersion(key, expected, value, KeyStore.storable(expireAtMillis));
    }

    /**
     * The client has no delete conditional on a version: an empty value that has already expired takes the key's
     * place by compare-and-set; readers and the memory node's scan then empty its slot.
     */
    public boolean deleteVersion(final byte[] key, final Versioned expected)
    {
        return client.compareAndSetVersion(key, expected, NO_VALUE, LONG_AGO);
    }

    public boolean delete(final byte[] key)
    {
        try
        {
            return client.delete(key);
        }
        catch (final WrongKindException ex)
        {
            return atomically(store -> store.delete(key));
        }
    }

    public long ttlMillis(final byte[] key)
    {
        return client.ttlMillis(key);
    }

    public boolean persist(final byte[] key)
    {
        try
        {
            return client.persist(key);
        }
        catch (final WrongKindException ex)
        {
            return atomically(store -> store.persist(key));
        }
    }

    public <T> T freeingMemory(final java.util.function.Supplier<T> operation)
    {
        return client.freeingMemory(operation);
    }

    public <T> T atomically(final Function<KeyStore, T> body)
    {
        return client.transact(tx ->
            body.apply(new TransactionKeyStore(tx, client.epochClock(), client.collectionSegmentBytes())));
    }

    public EpochClock epochClock()
    {
        return client.epochClock();
    }

    public Transaction transaction()
    {
        throw new IllegalStateException("a collection's operation runs inside atomically(), in a transaction");
    }

    public int segmentBytes()
    {
        return client.collectionSegmentBytes();
    }
}

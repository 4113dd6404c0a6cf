package io.dkv.client.ordered;

import io.dkv.client.KvClient;
import io.dkv.client.KvErrors;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ReservedKeys;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Keys kept in order, for range scans (client/README.md, "Ordered keyspaces"): each key's value at the key, as any
 * value of the store (a get is the one-sided get of any key), and the key in the keyspace's index, a B-link tree of
 * keys ({@link KeyIndex}). A put of a new key and a delete are transactions over the key and the index leaf it belongs
 * in; a put over an existing key is the key's own compare-and-set. A scan is a read-only transaction over the leaves
 * it reads and the values of the keys it returns: linearizable with every put and delete of the keyspace. Get one
 * from {@link KvClient#orderedKeyspace(String)}.
 */
public final class OrderedKeyspace
{
    /** Keys a scan returns at most. */
    public static final int MAX_SCAN = 100_000;
    /** A node of the index splits past this many times {@code dkv.client.collection.segment.bytes}. */
    static final int NODE_SEGMENTS = 4;

    private final KvClient client;
    private final KeyIndex index;

    /** Use {@link KvClient#orderedKeyspace(String)}, which keeps one for each name (its hints are shared). */
    public OrderedKeyspace(final KvClient client, final String name)
    {
        this.client = client;
        this.index = new KeyIndex(name, NODE_SEGMENTS * client.collectionSegmentBytes());
    }

    /** Set the key's value (no expiry), adding the key to the keyspace's order when it is new. */
    public void put(final byte[] key, final byte[] value)
    {
        client.transact(tx ->
        {
            put(tx, key, value);
            return null;
        });
    }

    /** As {@link #put(byte[], byte[])}, as part of {@code tx}: with whatever else it reads and writes, or nothing. */
    public void put(final Transaction tx, final byte[] key, final byte[] value)
    {
        requireUserKey(key);
        if (tx.get(key) == null)
        {
            index.insert(IndexAccess.of(tx), key);
        }
        tx.put(key, value);
    }

    /** @return the key's value, or null when it has none (the one-sided get of any key). */
    public byte[] get(final byte[] key)
    {
        return client.get(key);
    }

    /** @return true when the key had a value, which it no longer has, nor a place in the order. */
    public boolean delete(final byte[] key)
    {
        return client.transact(tx -> delete(tx, key));
    }

    /** As {@link #delete(byte[])}, as part of {@code tx}. */
    public boolean delete(final Transaction tx, final byte[] key)
    {
        requireUserKey(key);
        final boolean had = tx.delete(key);
        if (had)
        {
            index.remove(IndexAccess.of(tx), key);
        }
        return had;
    }

    /** @return up to {@code count} keys from {@code fromKey} (inclusive) on, in order, with their values. */
    public List<Map.Entry<byte[], byte[]>> scan(final byte[] fromKey, final int count)
    {
        return scan(fromKey, null, count);
    }

    /**
     * @param toKey the first key past the range (exclusive), or null for no end.
     * @return up to {@code count} keys from {@code fromKey} (inclusive) up to {@code toKey}, in order, with their
     * values: what the keyspace held at one instant between the call and its return.
     */
    public List<Map.Entry<byte[], byte[]>> scan(final byte[] fromKey, final byte[] toKey, final int count)
    {
        return client.transact(tx -> scan(tx, fromKey, toKey, count));
    }

    /** As {@link #scan(byte[], byte[], int)}, as part of {@code tx}: the keys and values as it sees them. */
    public List<Map.Entry<byte[], byte[]>> scan(final Transaction tx, final byte[] fromKey, final byte[] toKey,
        final int count)
    {
        if (count < 0 || count > MAX_SCAN)
        {
            throw new IllegalArgumentException("a scan returns 0 to " + MAX_SCAN + " keys; this one asked " + count);
        }
        final List<byte[]> keys = new ArrayList<>();
        index.scan(IndexAccess.of(tx), fromKey, toKey, count, keys);
        // the values in waves of the reads a thread keeps in flight, each wave's completions awaited
        final int wave = client.readsInFlight();
        final List<Map.Entry<byte[], byte[]>> entries = new ArrayList<>(keys.size());
        final List<CompletableFuture<byte[]>> values = new ArrayList<>(wave);
        for (int from = 0; from < keys.size(); from += wave)
        {
            values.clear();
            final int to = Math.min(keys.size(), from + wave);
            for (int i = from; i < to; i++)
            {
                values.add(tx.getAsync(keys.get(i)));
            }
            for (int i = from; i < to; i++)
            {
                final byte[] value = values.get(i - from).join();
                if (value != null)
                {
                    entries.add(Map.entry(keys.get(i), value));
                }
            }
        }
        return entries;
    }

    private static void requireUserKey(final byte[] key)
    {
        if (ReservedKeys.isReserved(key))
        {
            throw new IllegalArgumentException(ReservedKeys.refusal(KvErrors.describe(key)));
        }
    }
}

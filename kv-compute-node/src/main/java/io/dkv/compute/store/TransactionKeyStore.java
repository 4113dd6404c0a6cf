package io.dkv.compute.store;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.client.WrongKindException;
import io.dkv.client.collection.Composite;
import io.dkv.client.collection.Composites;
import io.dkv.client.pieces.PiecedStrings;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;
import org.agrona.concurrent.EpochClock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The store inside one client transaction: reads go to the store once and are remembered (a key the transaction wrote
 * reads as that write), writes wait for the commit, which makes them only if nothing the transaction read changed
 * meanwhile. So a compare-and-set here is a read and a buffered write: the commit checks the read, and a conflict runs
 * the whole transaction again. Used by one thread, for one run of the transaction.
 */
public final class TransactionKeyStore implements KeyStore
{
    private final Transaction tx;
    private final EpochClock clock;
    private final int segmentBytes;
    private final boolean replayed;

    /**
     * @param tx    the transaction it reads and writes through.
     * @param clock        the client's clock, by which expiry is judged.
     * @param segmentBytes the bytes of elements a collection's segment holds on average.
     */
    public TransactionKeyStore(final Transaction tx, final EpochClock clock, final int segmentBytes)
    {
        this(tx, clock, segmentBytes, false);
    }

    /**
     * @param tx           the transaction it reads and writes through.
     * @param clock        the client's clock, by which expiry is judged.
     * @param segmentBytes the bytes of elements a collection's segment holds on average.
     * @param replayed     true for a replayed run of one command ({@link KeyStore#replayed}): a read that meets a
     *                     string in pieces throws {@link NotReplayable}, as the command treats one otherwise alone
     *                     than in EXEC.
     */
    public TransactionKeyStore(final Transaction tx, final EpochClock clock, final int segmentBytes,
        final boolean replayed)
    {
        this.tx = tx;
        this.clock = clock;
        this.segmentBytes = segmentBytes;
        this.replayed = replayed;
    }

    public byte[] get(final byte[] key)
    {
        try
        {
            return tx.get(key);
        }
        catch (final WrongKindException ex)
        {
            throw replayed && ex.kind() == ValueKind.PIECES ? NotReplayable.INSTANCE : ex;
        }
    }

    /** @return the key's value of any kind, or null: a replayed run's string in pieces throws NotReplayable. */
    private LogicalValue read(final byte[] key)
    {
        final LogicalValue read = tx.read(key);
        if (replayed && read != null && read.kind() == ValueKind.PIECES)
        {
            throw NotReplayable.INSTANCE;
        }
        return read;
    }

    /** The transaction's reads are of one instant already: its commit checks them. A collection is no value. */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        final List<byte[]> values = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            final LogicalValue read = read(key);
            values.add(read == null ? null : read.kind() == ValueKind.PIECES ? KvClient.PIECES :
                read.kind() != ValueKind.STRING ? null : read.value());
        }
        return values;
    }

    public Versioned readAny(final byte[] key)
    {
        final LogicalValue read = read(key);
        return read == null ? null : new Versioned(read.value(), read.expiryWord(), 0, 0, 0, 0, 0, 0);
    }

    public long exists(final List<byte[]> keys)
    {
        long found = 0;
        for (final byte[] key : keys)
        {
            found += tx.read(key) != null ? 1 : 0;
        }
        return found;
    }

    /**
     * The value as this transaction sees it (its own writes counted, so that a second INCR of a key in one EXEC adds
     * to the first), with a version that only {@link #compareAndSetVersion} of this store reads: none is needed, as
     * nothing else writes the key between a read and a write of one transaction.
     */
    public Versioned getVersioned(final byte[] key)
    {
        final byte[] value = get(key);
        return value == null ? null : new Versioned(value, tx.expireAtMillis(key), 0, 0, 0, 0, 0, 0);
    }

    /** Whatever the key held goes: a collection with its segments. */
    public void put(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        dropCollection(key);
        tx.put(key, value, KeyStore.storable(expireAtMillis));
    }

    /**
     * @return true when the key held a collection or a string in pieces, which this transaction removes, header and
     * segments or pieces.
     */
    private boolean dropCollection(final byte[] key)
    {
        final LogicalValue read = read(key);
        if (read == null || read.kind() == ValueKind.STRING)
        {
            return false;
        }
        PiecedStrings.dropAny(tx, key, read, segmentBytes);
        return true;
    }

    public boolean compareAndSet(final byte[] key, final byte[] expected, final byte[] value,
        final long expireAtMillis)
    {
        if (expected == null)
        {
            // absent means no value of any kind (SET NX over a hash sets nothing, as in redis)
            if (tx.read(key) != null)
            {
                return false;
            }
        }
        else if (!Arrays.equals(get(key), expected))
        {
            return false;
        }
        tx.put(key, value, KeyStore.storable(expireAtMillis));
        return true;
    }

    /** Always sets: {@code expected} was read in this transaction, whose commit checks that read. */
    public boolean compareAndSetVersion(final byte[] key, final Versioned expected, final byte[] value,
        final long expireAtMillis)
    {
        tx.put(key, value, KeyStore.storable(expireAtMillis));
        return true;
    }

    /** Always deletes, as {@link #compareAndSetVersion} sets. */
    public boolean deleteVersion(final byte[] key, final Versioned expected)
    {
        tx.delete(key);
        return true;
    }

    public boolean delete(final byte[] key)
    {
        return dropCollection(key) || tx.delete(key);
    }

    public long ttlMillis(final byte[] key)
    {
        final long expireAt = tx.expireAtMillis(key);
        if (expireAt == -2 || expireAt == KvClient.NO_EXPIRY)
        {
            return expireAt == -2 ? -2 : -1;
        }
        final long left = expireAt - clock.time();
        return left <= 0 ? -2 : left;
    }

    public boolean persist(final byte[] key)
    {
        final LogicalValue read = read(key);
        if (read != null && read.kind() != ValueKind.STRING)
        {
            if (read.expireAtMillis() == KvClient.NO_EXPIRY)
            {
                return false;
            }
            final Composite collection = Composites.open(tx, key, read.kind(), segmentBytes);
            collection.expireAt(KvClient.NO_EXPIRY);
            collection.write();
            return true;
        }
        final byte[] value = tx.get(key);
        final long expireAt = tx.expireAtMillis(key);
        if (value == null || expireAt == -2 || expireAt == KvClient.NO_EXPIRY)
        {
            return false;
        }
        tx.put(key, value, KvClient.NO_EXPIRY);
        return true;
    }

    /** Part of this transaction: nothing more to make atomic. */
    public void readAhead(final List<byte[]> keys)
    {
        tx.readAll(keys);
    }

    public <T> T atomically(final Function<KeyStore, T> body)
    {
        return body.apply(this);
    }

    public EpochClock epochClock()
    {
        return clock;
    }

    public Transaction transaction()
    {
        return tx;
    }

    public int segmentBytes()
    {
        return segmentBytes;
    }
}

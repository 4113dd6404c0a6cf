package io.dkv.compute.store;

import io.dkv.client.Versioned;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;
import org.agrona.concurrent.EpochClock;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The store as the commands see it: the operations they use, each with the meaning of the embedded client's method of
 * the same name. {@link ClientKeyStore} runs each on its own; {@link TransactionKeyStore} runs them inside one client
 * transaction, which commits only if nothing it read changed meanwhile, so that a command's read-modify-write loop,
 * written once for both, is atomic with the rest of the transaction when it runs in one.
 *
 * <p>Kinds (client/README.md, "Hashes and sets"): the reads of values ({@link #get}, {@link #getVersioned}) are of
 * strings and throw {@code WrongKindException} (redis's WRONGTYPE) at a hash or a set, {@link #multiGet} answers one
 * as no value (as MGET); {@link #put}, {@link #delete} and {@link #persist} take whatever the key holds, a collection
 * with its segments; {@link #readAny} and {@link #exists} see every kind.
 */
public interface KeyStore
{
    /** What an asynchronous form answers where it carried nothing: the caller runs the command on a store thread. */
    long NOT_CARRIED = -1;

    /**
     * @return the expiry time as the store keeps it: times from 2^56 ms (the year 2,285,000) on are kept as the last
     * one before, as a block's expiry word holds 56 bits of time ({@code ValueKind}); such a key still never expires in
     * practice, and its EXPIRETIME answers that time, where redis answers the one given.
     */
    static long storable(final long expireAtMillis)
    {
        return Math.min(expireAtMillis, ValueKind.EXPIRY_LIMIT - 1);
    }

    /** @return the key's value, or null when it has none. */
    byte[] get(byte[] key);

    /**
     * @return the key's value of whatever kind (a string, or a collection's header: {@link Versioned#kind}) with its
     * expiry, or null when it has none.
     */
    Versioned readAny(byte[] key);

    /** @return how many of the keys have a value of any kind, a key named twice counted twice. */
    long exists(List<byte[]> keys);

    /**
     * @return the keys' values as of one instant, in their order, null where a key has none (or a collection), and
     * {@code KvClient.PIECES} (by identity) where it holds a string in pieces.
     */
    List<byte[]> multiGet(List<byte[]> keys);

    /** @return the key's value with its expiry and a version to compare-and-set from, or null when it has none. */
    Versioned getVersioned(byte[] key);

    /** Set the key's value, whatever it held, until {@code expireAtMillis} (or for ever: {@code NO_EXPIRY}). */
    void put(byte[] key, byte[] value, long expireAtMillis);

    /**
     * As {@link #get}, carried by the store's completions where it can be (a store of the client's own operations);
     * answered at once otherwise. Fails with {@code WrongKindException} where {@link #get} throws it.
     */
    default CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        try
        {
            return CompletableFuture.completedFuture(get(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** As {@link #getVersioned}, carried by the store's completions where it can be; answered at once otherwise. */
    default CompletableFuture<Versioned> getVersionedAsync(final byte[] key)
    {
        try
        {
            return CompletableFuture.completedFuture(getVersioned(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * As {@link #compareAndSet} from no value ({@code current} null) or {@link #compareAndSetVersion} from
     * {@code current}, carried by the store's completions where it can be; done at once otherwise.
     */
    default CompletableFuture<Boolean> compareAndSetAsync(final byte[] key, final Versioned current, final byte[] value,
        final long expireAtMillis)
    {
        try
        {
            return CompletableFuture.completedFuture(current == null ?
                compareAndSet(key, null, value, expireAtMillis) :
                compareAndSetVersion(key, current, value, expireAtMillis));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Set each of {@code keys} to its value in {@code values}, with no expiry, all at once as one transaction (a later
     * value of a key given twice wins), carried by the store's completions where it can be: every key read at once,
     * then, where each holds a string or nothing, the commit. Where it cannot be (a store with no asynchronous form, a
     * key holding a collection or a string in pieces, which go with their segments) it completes with
     * {@link #NOT_CARRIED} having written nothing: the caller then runs the puts in {@link #atomically} on a thread
     * that may wait.
     *
     * @param poster where what follows the reads is posted from: a thread that may wait a moment on the store (a
     *               write may first take a chunk of a memory node's heap), never one that delivers its completions.
     * @return completes with 1 once set, {@link #NOT_CARRIED} where it was not carried.
     */
    default CompletableFuture<Long> putAllAsync(final List<byte[]> keys, final List<byte[]> values,
        final Executor poster)
    {
        return CompletableFuture.completedFuture(NOT_CARRIED);
    }

    /**
     * As MSETNX: each of {@code keys} set to its value in {@code values}, with no expiry, only if none of them has a
     * value, in one transaction carried by the store's completions as {@link #putAllAsync} (a key with no value is
     * swapped from none, by the commit protocol, which carries it round by round).
     *
     * @return completes with 1 once set, 0 where a key had a value (nothing written), {@link #NOT_CARRIED} where the
     * store has no asynchronous form: the caller then runs it in {@link #atomically} on a thread that may wait.
     */
    default CompletableFuture<Long> putAllIfAbsentAsync(final List<byte[]> keys, final List<byte[]> values,
        final Executor poster)
    {
        return CompletableFuture.completedFuture(NOT_CARRIED);
    }

    /**
     * Run {@code body} as one transaction none of whose reads waits, carried by the store's completions: on
     * {@code poster}, against the reads known so far, again from the start each time it reads a key not yet read (once
     * that key was read), and committed once it returns (a conflict runs it again). {@code body} may run many times:
     * it must have no effect but on the store it is given, and what it returns is the last run's.
     *
     * @param poster where {@code body} runs and requests are posted from: never a thread that delivers the store's
     *               completions.
     * @return completes with what the run that committed returned; null where the store has no such form (the caller
     * then runs {@code body} in {@link #atomically} on a thread that may wait).
     */
    default <T> CompletableFuture<T> replayed(final Function<KeyStore, T> body, final Executor poster)
    {
        return null;
    }

    /** @return true where {@link #replayed} has a form: it never answers null. */
    default boolean replays()
    {
        return false;
    }

    /**
     * As DEL of several keys: those of {@code keys} that have a value deleted in one transaction carried by the
     * store's completions as {@link #putAllAsync}.
     *
     * @return completes with how many had a value (a key named twice counts once), or {@link #NOT_CARRIED} having
     * written nothing where a key holds a collection or a string in pieces (which go with their segments) or the
     * store has no asynchronous form: the caller then deletes them in {@link #atomically} on a thread that may wait.
     */
    default CompletableFuture<Long> deleteAllAsync(final List<byte[]> keys, final Executor poster)
    {
        return CompletableFuture.completedFuture(NOT_CARRIED);
    }

    /**
     * As {@link #delete}, carried by the store's completions where it can be; done at once otherwise. Fails with
     * {@code WrongKindException} where the key holds a collection or a string in pieces, which {@link #delete}
     * removes in a transaction of its own.
     */
    default CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        try
        {
            return CompletableFuture.completedFuture(delete(key));
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * As {@link #put}, carried by the store's completions where it can be; done at once otherwise. Fails with
     * {@code WrongKindException} where the key holds a collection or a string in pieces, which {@link #put} replaces
     * in a transaction of its own.
     */
    default CompletableFuture<Void> putAsync(final byte[] key, final byte[] value, final long expireAtMillis)
    {
        try
        {
            put(key, value, expireAtMillis);
            return CompletableFuture.completedFuture(null);
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Set the key's value only if it holds {@code expected} (null: no value) now.
     *
     * @return true when it was set.
     */
    boolean compareAndSet(byte[] key, byte[] expected, byte[] value, long expireAtMillis);

    /**
     * Set the key's value only if nobody wrote it since {@code expected} was read by {@link #getVersioned}.
     *
     * @return true when it was set.
     */
    boolean compareAndSetVersion(byte[] key, Versioned expected, byte[] value, long expireAtMillis);

    /**
     * Remove the key's value only if nobody wrote it since {@code expected} was read by {@link #getVersioned}.
     *
     * @return true when it was removed.
     */
    boolean deleteVersion(byte[] key, Versioned expected);

    /** @return true when the key had a value (it has none now). */
    boolean delete(byte[] key);

    /** @return milliseconds the key has left, -1 when it never expires, -2 when it has no value (redis's PTTL). */
    long ttlMillis(byte[] key);

    /** @return true when the key had an expiry, which it no longer has (redis's PERSIST). */
    boolean persist(byte[] key);

    /**
     * Run {@code body} over this store as one transaction: all its reads as of one instant and its writes all at once,
     * or none. On its own that is a client transaction, which runs {@code body} again after a conflict, so
     * {@code body} must do nothing but read and write through the store it is given; inside a transaction it is part
     * of that one.
     *
     * @return what {@code body} returned in the run that committed.
     */
    <T> T atomically(Function<KeyStore, T> body);

    /**
     * Run an operation that frees memory or only rewrites what keys hold (EXPIRE, PERSIST: allowed at redis's memory
     * limit): its writes on this thread may take a full memory node's reserve for deletes. Inside a transaction its
     * writes are the transaction's, committed as it is.
     *
     * @return what the operation returned.
     */
    default <T> T freeingMemory(final java.util.function.Supplier<T> operation)
    {
        return operation.get();
    }

    /**
     * Read the keys a transaction's body is about to use (its puts and deletes read each key's kind first) all at once
     * where the client's requests wait on a wire or a NIC ({@code Transaction.readAll}): inside {@link #atomically};
     * outside a transaction there is nothing to read ahead for.
     */
    default void readAhead(final List<byte[]> keys)
    {
    }

    /** @return the clock expiry is judged by, the one relative times are added to. */
    EpochClock epochClock();

    /**
     * @return the client transaction this store runs in, for collections' operations: only inside
     * {@link #atomically}.
     */
    Transaction transaction();

    /** @return the bytes of elements a collection's segment holds on average (the client's setting). */
    int segmentBytes();
}

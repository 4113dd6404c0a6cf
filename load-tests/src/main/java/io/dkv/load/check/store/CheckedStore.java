package io.dkv.load.check.store;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The store under test, as a workload sees it: bytes under string keys. The real one is a
 * {@link io.dkv.client.KvClient}; tests put deliberately faulty ones in its place.
 *
 * <p>Any exception means the outcome is unknown unless the operation had no effect by its nature
 * (a read).
 */
public interface CheckedStore
{
    /** @return the key's value, or null when it has none. */
    byte[] get(String key);

    void put(String key, byte[] value);

    /**
     * @param expected the value the key must hold, or null: it must have none.
     * @return true when the value was set.
     */
    boolean compareAndSet(String key, byte[] expected, byte[] value);

    /**
     * Run {@code body} as one transaction over any keys: its reads see one instant of the store and its writes are
     * made together, or not at all; on a conflict it runs again.
     *
     * @return what {@code body} returned in the run that committed.
     */
    <T> T transact(Function<TxnView, T> body);

    /** One step on a real list: append {@code element} (redis's RPUSH), or, {@code element} null, read it whole. */
    record ListStep(String key, byte[] element)
    {
    }

    /**
     * Run the steps on real lists (a sorted set's sibling: redis's RPUSH and LRANGE 0 -1) as one transaction: all or
     * nothing, its reads of one instant; one step alone is the store's own single command.
     *
     * @return for each step, the elements a read found (none when the key holds no list), or null for an append.
     */
    List<List<byte[]>> listSteps(List<ListStep> steps);

    /** A transaction's view of the store: reads, and writes made when it commits. */
    interface TxnView
    {
        /** @return the key's value as the transaction sees it, or null when it has none. */
        byte[] get(String key);

        void put(String key, byte[] value);
    }

    /**
     * @param current  what a key holds, or null for nothing.
     * @param expected what a compare-and-set expects, or null for nothing.
     * @return whether the compare-and-set would find what it expects.
     */
    static boolean holds(final byte[] current, final byte[] expected)
    {
        return expected == null ? current == null : current != null && Arrays.equals(current, expected);
    }
}

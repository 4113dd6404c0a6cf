package io.dkv.load.check.harness;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Deliberately broken layers over a store, to show that the harness catches what they break:
 * {@code dkv check --inject} puts one between the clients and the real store, and the tests put
 * them over a store in memory.
 */
public final class FaultyStores
{
    public static final String STALE_READS = "stale-reads";
    public static final String LOST_UPDATES = "lost-updates";
    public static final String NAMES = STALE_READS + ", " + LOST_UPDATES;
    private static final String NONE = "none";
    private static final List<String> KNOWN = List.of(NONE, STALE_READS, LOST_UPDATES);

    private FaultyStores()
    {
    }

    /**
     * @throws IllegalArgumentException when no fault has that name.
     */
    public static void requireKnown(final String fault)
    {
        if (!KNOWN.contains(fault))
        {
            throw new IllegalArgumentException("unknown fault '" + fault + "': expected none, " + NAMES);
        }
    }

    /**
     * @return the store with the named fault, or the store itself for "none".
     */
    public static CheckedStore inject(final String fault, final CheckedStore store)
    {
        requireKnown(fault);
        return switch (fault)
        {
            case STALE_READS -> new StaleReads(store, 50);
            case LOST_UPDATES -> new LostUpdates(store, TimeUnit.MILLISECONDS.toNanos(2));
            default -> store;
        };
    }

    /**
     * Reads served from a copy of what was last read, refreshed only every so often, as a cache
     * without invalidation would; writes go through.
     */
    public static final class StaleReads implements CheckedStore
    {
        private static final byte[] ABSENT = new byte[0];

        private final CheckedStore store;
        private final long refreshNanos;
        private final ConcurrentHashMap<String, byte[]> cached = new ConcurrentHashMap<>();
        private final ConcurrentHashMap<String, Long> cachedAt = new ConcurrentHashMap<>();

        public StaleReads(final CheckedStore store, final long refreshMs)
        {
            this.store = store;
            this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(refreshMs);
        }

        public byte[] get(final String key)
        {
            final Long at = cachedAt.get(key);
            if (at == null || System.nanoTime() - at > refreshNanos)
            {
                final byte[] value = store.get(key);
                cached.put(key, value == null ? ABSENT : value);
                cachedAt.put(key, System.nanoTime());
                return value;
            }
            final byte[] value = cached.get(key);
            return value == ABSENT ? null : value;
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            return store.compareAndSet(key, expected, value);
        }
    }

    /**
     * Compare-and-set as two steps without a lock: compare what a read returned, wait, then write,
     * so two writers that both find the expected value both succeed and one update is lost.
     */
    public static final class LostUpdates implements CheckedStore
    {
        private final CheckedStore store;
        private final long windowNanos;

        public LostUpdates(final CheckedStore store, final long windowNanos)
        {
            this.store = store;
            this.windowNanos = windowNanos;
        }

        public byte[] get(final String key)
        {
            return store.get(key);
        }

        public void put(final String key, final byte[] value)
        {
            store.put(key, value);
        }

        public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
        {
            final byte[] current = store.get(key);
            if (!CheckedStore.holds(current, expected))
            {
                return false;
            }
            LockSupport.parkNanos(windowNanos);
            store.put(key, value);
            return true;
        }
    }
}

package io.dkv.load.check.harness;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Faulty: writes are atomic, but reads are served from a copy that follows the store only every
 * so often, as a cache without invalidation would.
 */
final class StaleReadStore extends MapStore
{
    private final ConcurrentHashMap<String, byte[]> cache = new ConcurrentHashMap<>();
    private final long refreshNanos;
    private volatile long refreshedAt = System.nanoTime();

    StaleReadStore(final long refreshMs)
    {
        this.refreshNanos = refreshMs * 1_000_000L;
    }

    public byte[] get(final String key)
    {
        if (System.nanoTime() - refreshedAt > refreshNanos)
        {
            synchronized (this)
            {
                cache.clear();
                cache.putAll(values);
                refreshedAt = System.nanoTime();
            }
        }
        return cache.get(key);
    }
}

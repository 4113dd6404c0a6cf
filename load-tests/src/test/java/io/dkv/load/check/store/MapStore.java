package io.dkv.load.check.store;

import java.util.concurrent.ConcurrentHashMap;

/**
 * A correct store in memory: every operation atomic on its key. The control against which the
 * faulty stores are judged.
 */
public class MapStore implements CheckedStore
{
    final ConcurrentHashMap<String, byte[]> values = new ConcurrentHashMap<>();

    public byte[] get(final String key)
    {
        return values.get(key);
    }

    public void put(final String key, final byte[] value)
    {
        values.put(key, value.clone());
    }

    public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
    {
        final boolean[] set = new boolean[1];
        values.compute(key, (k, current) ->
        {
            if (CheckedStore.holds(current, expected))
            {
                set[0] = true;
                return value.clone();
            }
            return current;
        });
        return set[0];
    }
}

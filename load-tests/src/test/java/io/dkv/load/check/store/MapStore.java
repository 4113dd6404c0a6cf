package io.dkv.load.check.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A correct store in memory: every operation, a single key's or a transaction's over several, one at a time under one
 * lock (serial, hence strictly serializable). The control against which the faulty stores are judged.
 */
public class MapStore implements CheckedStore
{
    final ConcurrentHashMap<String, byte[]> values = new ConcurrentHashMap<>();
    private final Map<String, List<byte[]>> lists = new HashMap<>();

    public byte[] get(final String key)
    {
        synchronized (values)
        {
            return values.get(key);
        }
    }

    public void put(final String key, final byte[] value)
    {
        synchronized (values)
        {
            values.put(key, value.clone());
        }
    }

    public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
    {
        synchronized (values)
        {
            if (!CheckedStore.holds(values.get(key), expected))
            {
                return false;
            }
            values.put(key, value.clone());
            return true;
        }
    }

    public <T> T transact(final Function<TxnView, T> body)
    {
        synchronized (values)
        {
            final Map<String, byte[]> writes = new HashMap<>();
            final T result = body.apply(new TxnView()
            {
                public byte[] get(final String key)
                {
                    return writes.containsKey(key) ? writes.get(key) : values.get(key);
                }

                public void put(final String key, final byte[] value)
                {
                    writes.put(key, value.clone());
                }
            });
            values.putAll(writes);
            return result;
        }
    }

    public List<List<byte[]>> listSteps(final List<ListStep> steps)
    {
        synchronized (values)
        {
            final List<List<byte[]>> results = new ArrayList<>(steps.size());
            for (final ListStep step : steps)
            {
                final List<byte[]> list = lists.computeIfAbsent(step.key(), key -> new ArrayList<>());
                if (step.element() != null)
                {
                    list.add(step.element().clone());
                    results.add(null);
                }
                else
                {
                    results.add(new ArrayList<>(list));
                }
            }
            return results;
        }
    }
}

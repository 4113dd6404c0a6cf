package io.dkv.memory;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;

import java.nio.charset.StandardCharsets;

/**
 * Counters held as decimal text under a key and incremented as INCR over compare-and-set is: read
 * the value, write the next one only over what was read, and try again when another writer came between.
 */
final class Counters
{
    private Counters()
    {
    }

    /** Add one by {@code compareAndSet} over the value read, trying until no other writer came between. */
    static void increment(final KvClient client, final byte[] counter)
    {
        while (!tryIncrement(client, counter))
        {
            Thread.onSpinWait();
        }
    }

    /** @return whether this one try added one; false when another writer came between the read and the write. */
    static boolean tryIncrement(final KvClient client, final byte[] counter)
    {
        final byte[] current = client.get(counter);
        return client.compareAndSet(counter, current, text(valueOf(current) + 1));
    }

    /** Add one by {@code compareAndSetVersion} over the version read, trying until no other writer came between. */
    static void incrementVersion(final KvClient client, final byte[] counter)
    {
        while (!tryIncrementVersion(client, counter))
        {
            Thread.onSpinWait();
        }
    }

    /** @return whether this one try added one: over the version read, or by a first write while it is absent. */
    static boolean tryIncrementVersion(final KvClient client, final byte[] counter)
    {
        final Versioned current = client.getVersioned(counter);
        if (current == null)
        {
            return client.compareAndSet(counter, null, text(1));
        }
        return client.compareAndSetVersion(counter, current, text(valueOf(current.value()) + 1));
    }

    /** @return the counter's value, 0 while it is absent. */
    static long valueOf(final byte[] held)
    {
        return held == null ? 0 : Long.parseLong(new String(held, StandardCharsets.UTF_8));
    }

    private static byte[] text(final long value)
    {
        return Long.toString(value).getBytes(StandardCharsets.UTF_8);
    }
}

package io.dkv.load.check.harness;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Faulty: compare-and-set compares and then writes as two steps without a lock, so two writers
 * that both find the expected value both succeed and one update is lost.
 */
final class LostUpdateStore extends MapStore
{
    public boolean compareAndSet(final String key, final byte[] expected, final byte[] value)
    {
        final byte[] current = values.get(key);
        if (expected == null ? current != null : current == null || !Arrays.equals(current, expected))
        {
            return false;
        }
        LockSupport.parkNanos(200_000); // the window in which another writer finds the same value
        values.put(key, value.clone());
        return true;
    }
}

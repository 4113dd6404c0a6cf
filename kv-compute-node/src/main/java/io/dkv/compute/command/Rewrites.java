package io.dkv.compute.command;

import io.dkv.client.KvClient;
import io.dkv.client.Versioned;
import io.dkv.compute.store.KeyStore;

/**
 * The write half of a command's read-modify-write of one key (SETRANGE, SETBIT, INCRBYFLOAT...): the new value in
 * place of the version read, only if nobody wrote the key since, its expiry kept; the command reads again and
 * retries when this fails, so the change is atomic for its key as in redis.
 */
final class Rewrites
{
    private Rewrites()
    {
    }

    /**
     * @param current the version read, or null when the key had no value (then it must still have none).
     * @return true when written.
     */
    static boolean keepingExpiry(final KeyStore store, final byte[] key, final Versioned current, final byte[] value)
    {
        return current == null ? store.compareAndSet(key, null, value, KvClient.NO_EXPIRY) :
            store.compareAndSetVersion(key, current, value, current.expireAtMillis());
    }
}

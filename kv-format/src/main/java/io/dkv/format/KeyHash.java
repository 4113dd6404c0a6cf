package io.dkv.format;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 64-bit hash every client computes the same way for a key, and what it selects: the
 * directory entry (its low bits), the fingerprint (its top byte) and the two candidate combined
 * buckets (two mixes of it, so that the candidates are independent of each other and of the
 * directory bits).
 */
public final class KeyHash
{
    private static final long M = 0xc6a4a7935bd1e995L;
    private static final long SECOND = 0x9e3779b97f4a7c15L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyHash()
    {
    }

    /** A multiply-xorshift hash over 8-byte words (MurmurHash64A's construction). */
    public static long hash(final byte[] key)
    {
        return hash(key, 0, key.length);
    }

    /** {@link #hash(byte[])} of the key at {@code offset} in {@code bytes}, {@code length} bytes long. */
    public static long hash(final byte[] bytes, final int offset, final int length)
    {
        long h = 0x5bd1e9955bd1e995L ^ (length * M);
        final int words = length >>> 3;
        for (int i = 0; i < words; i++)
        {
            long k = (long)LONGS.get(bytes, offset + (i << 3));
            k *= M;
            k ^= k >>> 47;
            k *= M;
            h ^= k;
            h *= M;
        }
        final int tail = words << 3;
        if (tail < length)
        {
            long k = 0;
            for (int i = length - 1; i >= tail; i--)
            {
                k = (k << 8) | (bytes[offset + i] & 0xff);
            }
            h ^= k;
            h *= M;
        }
        h ^= h >>> 47;
        h *= M;
        h ^= h >>> 47;
        return h;
    }

    public static int fingerprint(final long hash)
    {
        return (int)(hash >>> 56);
    }

    public static int directoryIndex(final long hash, final int globalDepth)
    {
        return (int)(hash & ((1L << globalDepth) - 1));
    }

    /**
     * @param candidate 0 or 1.
     * @return the candidate's bucket group in a subtable of {@code groups} groups.
     */
    public static int group(final long hash, final int candidate, final int groups)
    {
        return (int)(mix(hash, candidate) & (groups - 1));
    }

    /** @return which main bucket of its group the candidate combined bucket is built on: 0 or 1. */
    public static int side(final long hash, final int candidate)
    {
        return (int)((mix(hash, candidate) >>> 40) & 1);
    }

    private static long mix(final long hash, final int candidate)
    {
        long z = hash + (candidate + 1) * SECOND;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}

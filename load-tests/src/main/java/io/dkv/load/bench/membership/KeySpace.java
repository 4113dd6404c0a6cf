package io.dkv.load.bench.membership;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The benchmark's keys and values: key {@code i} is a fixed-length name, and each of its values starts with
 * {@code i} and a version, so that a read can tell a value of its key, of the right size, from anything else.
 *
 * @param keys      how many keys, numbered from 0.
 * @param valueSize bytes of each value.
 */
record KeySpace(int keys, int valueSize)
{
    static final int MIN_VALUE_SIZE = 2 * Long.BYTES;
    private static final String KEY_FORMAT = "dkv-bench-membership-%010d";

    KeySpace
    {
        if (keys < 1 || valueSize < MIN_VALUE_SIZE)
        {
            throw new IllegalArgumentException(keys + " keys of " + valueSize + " B values: needs a key and values " +
                "of at least " + MIN_VALUE_SIZE + " B");
        }
    }

    /**
     * @param bytes     values' bytes in all, at least one value.
     * @param valueSize bytes of each value.
     * @return as many keys as {@code bytes} of values make.
     */
    static KeySpace ofBytes(final long bytes, final int valueSize)
    {
        final long keys = bytes / valueSize;
        if (keys < 1 || keys > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(bytes + " B of " + valueSize + " B values make " + keys + " keys: " +
                "must be 1 to " + Integer.MAX_VALUE);
        }
        return new KeySpace((int)keys, valueSize);
    }

    byte[] key(final int index)
    {
        return String.format(Locale.ROOT, KEY_FORMAT, index).getBytes(StandardCharsets.US_ASCII);
    }

    /** @return bytes of a key, the same for every key. */
    int keyLength()
    {
        return key(0).length;
    }

    /** @return the bytes a key and its value carry: what moving the key moves, its block's header aside. */
    long bytesPerKey()
    {
        return keyLength() + (long)valueSize;
    }

    /** @return the values' bytes of every key. */
    long valueBytes()
    {
        return (long)keys * valueSize;
    }

    byte[] value(final int index, final long version)
    {
        final byte[] value = new byte[valueSize];
        final ByteBuffer buffer = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(index).putLong(version);
        // the rest is a pattern of the key, not zeros, so that a copy that loses bytes in its middle is seen
        for (int i = MIN_VALUE_SIZE; i < valueSize; i++)
        {
            value[i] = (byte)(index + i);
        }
        return value;
    }

    /**
     * @return null when {@code value} is one of key {@code index}'s, else what is wrong with it.
     */
    String mismatch(final int index, final byte[] value)
    {
        if (value == null)
        {
            return "key " + index + " has no value";
        }
        if (value.length != valueSize)
        {
            return "key " + index + " holds " + value.length + " B, not " + valueSize;
        }
        final long held = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
        if (held != index)
        {
            return "key " + index + " holds a value of key " + held;
        }
        for (int i = MIN_VALUE_SIZE; i < valueSize; i++)
        {
            if (value[i] != (byte)(index + i))
            {
                return "key " + index + " holds a wrong byte at " + i;
            }
        }
        return null;
    }
}

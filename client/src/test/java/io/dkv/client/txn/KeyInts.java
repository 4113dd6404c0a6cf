package io.dkv.client.txn;

import java.util.function.IntFunction;

/**
 * A small int per key (a value or a version), or none, packed in one long: 16 bits a key, up to four keys. Immutable,
 * compared by value, cheap to copy into every state.
 *
 * @param bits the packed ints; a key's 16 bits all set mean "none".
 */
record KeyInts(long bits)
{
    static final KeyInts EMPTY = new KeyInts(-1L);
    static final int MAX_KEYS = 4;

    private static final int WIDTH = 16;
    private static final long UNSET = 0xFFFFL;

    boolean has(final int key)
    {
        return field(key) != UNSET;
    }

    int get(final int key)
    {
        if (!has(key))
        {
            throw new IllegalStateException("no int for key " + Values.key(key));
        }
        return (int)field(key);
    }

    KeyInts with(final int key, final int value)
    {
        if (value < 0 || value >= UNSET)
        {
            throw new IllegalArgumentException("int out of range: " + value);
        }
        final int shift = key * WIDTH;
        return new KeyInts((bits & ~(UNSET << shift)) | ((long)value << shift));
    }

    boolean isEmpty()
    {
        return bits == -1L;
    }

    String show(final IntFunction<String> format)
    {
        final StringBuilder out = new StringBuilder("{");
        for (int key = 0; key < MAX_KEYS; key++)
        {
            if (has(key))
            {
                out.append(out.length() > 1 ? " " : "").append(Values.key(key)).append('=')
                    .append(format.apply(get(key)));
            }
        }
        return out.append('}').toString();
    }

    private long field(final int key)
    {
        if (key < 0 || key >= MAX_KEYS)
        {
            throw new IllegalArgumentException("key out of range: " + key);
        }
        return (bits >>> (key * WIDTH)) & UNSET;
    }
}

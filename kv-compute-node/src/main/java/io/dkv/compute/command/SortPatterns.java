package io.dkv.compute.command;

import io.dkv.client.Versioned;
import io.dkv.compute.store.KeyStore;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.util.Arrays;

/**
 * SORT's BY and GET patterns, as redis 7.0's lookupKeyByPattern reads them: {@code #} alone is the element itself; a
 * pattern names a key by its first {@code *}, replaced by the element; {@code ->field} after the star (a field of at
 * least one byte) reads that field of a hash instead of a string. A pattern without a star, a key that holds another
 * kind, a missing key or field: no value. Redis finds the star, the arrow and the lone {@code #} as C does, in the
 * pattern up to its first NUL byte, but copies the parts by their whole lengths; so does this class, so binary
 * patterns name the keys they name there.
 *
 * <p>A key no client can have (empty, longer than a key may be, or one the store keeps for itself) has no value. A
 * string kept in pieces (longer than a value takes) is not read here: the command is refused, before it changes
 * anything.
 */
final class SortPatterns
{
    private SortPatterns()
    {
    }

    /** @return the index of the pattern's first {@code *} before its first NUL byte, or -1 when it has none. */
    static int star(final byte[] pattern)
    {
        for (int i = 0; i < pattern.length && pattern[i] != 0; i++)
        {
            if (pattern[i] == '*')
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param store   the transaction the command runs in.
     * @param pattern a BY or GET pattern.
     * @param element the element it is applied to.
     * @return the value the pattern names for the element, or null when it names none.
     */
    static byte[] lookup(final KeyStore store, final byte[] pattern, final byte[] element)
    {
        if (itself(pattern))
        {
            return element;
        }
        final byte[] key = keyOf(pattern, element);
        if (key == null)
        {
            return null;
        }
        final Versioned value = store.readAny(key);
        if (value == null)
        {
            return null;
        }
        final int arrow = hashField(pattern);
        if (arrow >= 0)
        {
            return value.kind() != ValueKind.HASH ? null : CollectionOps.open(store, key, ValueKind.HASH)
                .get(Arrays.copyOfRange(pattern, arrow + 2, pattern.length));
        }
        if (value.kind() == ValueKind.PIECES)
        {
            throw new IllegalArgumentException("SORT of a string longer than " + KvBlockLayout.MAX_VALUE_LENGTH +
                " bytes is not served (dkv): pattern '" + Errors.text128(pattern) + "' names key '" +
                Errors.text128(key) + "'");
        }
        return value.kind() == ValueKind.STRING ? value.value() : null;
    }

    /**
     * @return the key the pattern names for the element (a hash's where it names a field), or null where it names
     * none: {@code #}, no {@code *}, or a key no store holds (empty, too long, reserved).
     */
    static byte[] keyOf(final byte[] pattern, final byte[] element)
    {
        final int star = itself(pattern) ? -1 : star(pattern);
        if (star < 0)
        {
            return null;
        }
        final int arrow = hashField(pattern);
        final int suffixEnd = arrow >= 0 ? arrow : pattern.length;
        final byte[] key = new byte[star + element.length + suffixEnd - star - 1];
        System.arraycopy(pattern, 0, key, 0, star);
        System.arraycopy(element, 0, key, star, element.length);
        System.arraycopy(pattern, star + 1, key, star + element.length, suffixEnd - star - 1);
        if (key.length == 0 || key.length > KvBlockLayout.MAX_KEY_LENGTH || ReservedKeys.isReserved(key))
        {
            return null;
        }
        return key;
    }

    /** @return true for {@code #} (before any NUL): the element itself. */
    private static boolean itself(final byte[] pattern)
    {
        return pattern.length > 0 && pattern[0] == '#' && (pattern.length == 1 || pattern[1] == 0);
    }

    /** @return where the pattern's {@code ->} that names a hash's field is, or -1 when it names a key's value. */
    private static int hashField(final byte[] pattern)
    {
        final int cLength = cLength(pattern);
        final int arrow = arrow(pattern, star(pattern) + 1, cLength);
        return arrow >= 0 && arrow + 2 < cLength ? arrow : -1;
    }

    /** @return the bytes before the first NUL: the length C's string functions see. */
    static int cLength(final byte[] text)
    {
        for (int i = 0; i < text.length; i++)
        {
            if (text[i] == 0)
            {
                return i;
            }
        }
        return text.length;
    }

    /** @return the first {@code ->} from {@code from} that ends before {@code end}, or -1. */
    private static int arrow(final byte[] pattern, final int from, final int end)
    {
        for (int i = from; i + 1 < end; i++)
        {
            if (pattern[i] == '-' && pattern[i + 1] == '>')
            {
                return i;
            }
        }
        return -1;
    }
}

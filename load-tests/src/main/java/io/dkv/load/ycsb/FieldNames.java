package io.dkv.load.ycsb;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The field names of the records one client thread decodes, kept as Strings by position. Records
 * of a table name the same fields in the same order, so a name is decoded once and afterwards only
 * compared with the bytes at its position: a read of YCSB's default record would otherwise make
 * ten Strings, a tenth of its CPU time in the client.
 *
 * <p>One thread's: YCSB gives every client thread a DB instance of its own, and each has its own.
 */
public final class FieldNames
{
    /** Positions remembered; fields beyond are decoded every time. */
    static final int MAX_POSITIONS = 64;

    private final byte[][] encoded = new byte[MAX_POSITIONS][];
    private final String[] names = new String[MAX_POSITIONS];

    /**
     * @param position the field's position in its record.
     * @return the name in {@code record[offset, offset + length)}, the String of the last time the
     *         same bytes stood at that position when they did.
     */
    public String name(final int position, final byte[] record, final int offset, final int length)
    {
        if (position >= MAX_POSITIONS)
        {
            return new String(record, offset, length, StandardCharsets.UTF_8);
        }
        final byte[] known = encoded[position];
        if (known != null && Arrays.equals(known, 0, known.length, record, offset, offset + length))
        {
            return names[position];
        }
        final String name = new String(record, offset, length, StandardCharsets.UTF_8);
        encoded[position] = Arrays.copyOfRange(record, offset, offset + length);
        names[position] = name;
        return name;
    }
}

package io.dkv.load.ycsb;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A YCSB record (field names to values) as one dkv value. Big-endian, lengths before bytes:
 *
 * <pre>
 * record := fieldCount:u16 field{fieldCount}
 * field  := nameLength:u16 name:UTF-8{nameLength} valueLength:i32 value{valueLength}
 * </pre>
 *
 * Field order is the map's; a name appears at most once. YCSB's default record (10 fields named
 * field0..field9 of 100 B) takes 1,000 B of values and 122 B of framing.
 */
public final class RecordCodec
{
    static final int MAX_FIELDS = 0xffff;
    static final int MAX_NAME_LENGTH = 0xffff;
    private static final int COUNT_LENGTH = 2;
    private static final int NAME_LENGTH_LENGTH = 2;
    private static final int VALUE_LENGTH_LENGTH = 4;

    private RecordCodec()
    {
    }

    /**
     * @param fields the record's fields; names of at most {@value #MAX_NAME_LENGTH} UTF-8 bytes.
     * @return the record as one value.
     */
    public static byte[] encode(final Map<String, byte[]> fields)
    {
        if (fields.size() > MAX_FIELDS)
        {
            throw new IllegalArgumentException("a record holds up to " + MAX_FIELDS + " fields; this one has " +
                fields.size());
        }
        final byte[][] names = new byte[fields.size()][];
        long length = COUNT_LENGTH;
        int i = 0;
        for (final Map.Entry<String, byte[]> field : fields.entrySet())
        {
            final byte[] name = field.getKey().getBytes(StandardCharsets.UTF_8);
            if (name.length > MAX_NAME_LENGTH)
            {
                throw new IllegalArgumentException("field name of " + name.length + " bytes exceeds " +
                    MAX_NAME_LENGTH);
            }
            names[i++] = name;
            length += NAME_LENGTH_LENGTH + name.length + VALUE_LENGTH_LENGTH + field.getValue().length;
        }
        if (length > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("record of " + length + " bytes does not fit one value");
        }
        final byte[] record = new byte[(int)length];
        int at = putShort(record, 0, fields.size());
        i = 0;
        for (final byte[] value : fields.values())
        {
            final byte[] name = names[i++];
            at = putShort(record, at, name.length);
            System.arraycopy(name, 0, record, at, name.length);
            at = putInt(record, at + name.length, value.length);
            System.arraycopy(value, 0, record, at, value.length);
            at += value.length;
        }
        return record;
    }

    /**
     * @return every field of the record, in its order, each value copied out.
     */
    public static Map<String, byte[]> decode(final byte[] record)
    {
        return decode(record, null);
    }

    /**
     * @param names the decoding thread's field names, or null to decode each name anew.
     * @return every field of the record, in its order, each value copied out.
     */
    public static Map<String, byte[]> decode(final byte[] record, final FieldNames names)
    {
        final Map<String, byte[]> fields = new LinkedHashMap<>();
        forEachField(record, names,
            (name, offset, length) -> fields.put(name, Arrays.copyOfRange(record, offset, offset + length)));
        return fields;
    }

    /**
     * Put the record's fields named in {@code wanted} (all when null) into {@code result}, each an
     * iterator over the record's own bytes (no copy).
     */
    public static void decodeInto(final byte[] record, final Set<String> wanted, final Map<String, ByteIterator> result)
    {
        decodeInto(record, wanted, result, null);
    }

    /**
     * As {@link #decodeInto(byte[], Set, Map)}, the names taken from {@code names} when they are
     * the ones it saw last at their positions.
     *
     * @param names the decoding thread's field names, or null to decode each name anew.
     */
    public static void decodeInto(
        final byte[] record, final Set<String> wanted, final Map<String, ByteIterator> result, final FieldNames names)
    {
        forEachField(record, names, (name, offset, length) ->
        {
            if (wanted == null || wanted.contains(name))
            {
                result.put(name, new ByteArrayByteIterator(record, offset, length));
            }
        });
    }

    /**
     * The record with some fields' values replaced: every field keeps its place, a changed one
     * takes its new value, a change naming a field the record lacks is added after the others. The
     * unchanged fields are copied as bytes, nothing decoded but their names.
     *
     * @param names the decoding thread's field names, or null to decode each name anew.
     * @return a new record; {@code record} is not modified.
     */
    public static byte[] withChanges(final byte[] record, final Map<String, byte[]> changes, final FieldNames names)
    {
        // the new record's length and how many changes name fields the record has
        final long[] sizing = {record.length, 0};
        forEachField(record, names, (name, offset, valueLength) ->
        {
            final byte[] change = changes.get(name);
            if (change != null)
            {
                sizing[0] += change.length - valueLength;
                sizing[1]++;
            }
        });
        final long length = sizing[0];
        final long replaced = sizing[1];
        if (replaced < changes.size())
        {
            // new fields: rare (YCSB updates fields every record has), so the plain way
            final Map<String, byte[]> fields = decode(record, names);
            fields.putAll(changes);
            return encode(fields);
        }
        if (length > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("record of " + length + " bytes does not fit one value");
        }
        final byte[] changed = new byte[(int)length];
        System.arraycopy(record, 0, changed, 0, COUNT_LENGTH);
        // where the next field starts in the record and in the new one
        final int[] cursor = {COUNT_LENGTH, COUNT_LENGTH};
        forEachField(record, names, (name, offset, valueLength) ->
        {
            final int header = offset - cursor[0];
            System.arraycopy(record, cursor[0], changed, cursor[1], header - VALUE_LENGTH_LENGTH);
            int to = cursor[1] + header - VALUE_LENGTH_LENGTH;
            final byte[] change = changes.get(name);
            if (change == null)
            {
                System.arraycopy(record, offset - VALUE_LENGTH_LENGTH, changed, to, VALUE_LENGTH_LENGTH + valueLength);
                to += VALUE_LENGTH_LENGTH + valueLength;
            }
            else
            {
                to = putInt(changed, to, change.length);
                System.arraycopy(change, 0, changed, to, change.length);
                to += change.length;
            }
            cursor[0] = offset + valueLength;
            cursor[1] = to;
        });
        return changed;
    }

    /** Receives a field's name and where its value lies in the record. */
    @FunctionalInterface
    private interface FieldVisitor
    {
        void visit(String name, int valueOffset, int valueLength);
    }

    /** Walk the record's fields in order, checking every length against the record's bytes. */
    private static void forEachField(final byte[] record, final FieldNames names, final FieldVisitor visitor)
    {
        final int count = fieldCount(record);
        int at = COUNT_LENGTH;
        for (int i = 0; i < count; i++)
        {
            final int nameLength = nameLength(record, at, i);
            final String name = name(names, i, record, at + NAME_LENGTH_LENGTH, nameLength);
            at += NAME_LENGTH_LENGTH + nameLength;
            final int valueLength = valueLength(record, at, i);
            at += VALUE_LENGTH_LENGTH;
            visitor.visit(name, at, valueLength);
            at += valueLength;
        }
    }

    private static String name(final FieldNames names, final int position, final byte[] record, final int offset,
        final int length)
    {
        return names == null ? new String(record, offset, length, StandardCharsets.UTF_8) :
            names.name(position, record, offset, length);
    }

    private static int fieldCount(final byte[] record)
    {
        if (record.length < COUNT_LENGTH)
        {
            throw truncated(record, 0, COUNT_LENGTH, "its field count");
        }
        return getShort(record, 0);
    }

    private static int nameLength(final byte[] record, final int at, final int field)
    {
        if (at + NAME_LENGTH_LENGTH > record.length)
        {
            throw truncated(record, at, NAME_LENGTH_LENGTH, "the name length of field " + field);
        }
        final int length = getShort(record, at);
        if (at + NAME_LENGTH_LENGTH + length + VALUE_LENGTH_LENGTH > record.length)
        {
            throw truncated(record, at + NAME_LENGTH_LENGTH, length + VALUE_LENGTH_LENGTH,
                "the name and value length of field " + field);
        }
        return length;
    }

    private static int valueLength(final byte[] record, final int at, final int field)
    {
        final int length = getInt(record, at);
        if (length < 0)
        {
            throw new IllegalArgumentException("record of " + record.length + " bytes gives field " + field +
                " a value length of " + length + " at offset " + at);
        }
        if ((long)at + VALUE_LENGTH_LENGTH + length > record.length)
        {
            throw truncated(record, at + VALUE_LENGTH_LENGTH, length, "the value of field " + field);
        }
        return length;
    }

    /** Built only when a record is found wanting: a read checks every length of every field. */
    private static IllegalArgumentException truncated(final byte[] record, final int at, final long bytes,
        final String what)
    {
        return new IllegalArgumentException("record of " + record.length + " bytes ends before " + what + " (" + bytes +
            " bytes at offset " + at + "): not a record");
    }

    private static int putShort(final byte[] bytes, final int at, final int value)
    {
        bytes[at] = (byte)(value >>> 8);
        bytes[at + 1] = (byte)value;
        return at + 2;
    }

    private static int putInt(final byte[] bytes, final int at, final int value)
    {
        bytes[at] = (byte)(value >>> 24);
        bytes[at + 1] = (byte)(value >>> 16);
        bytes[at + 2] = (byte)(value >>> 8);
        bytes[at + 3] = (byte)value;
        return at + 4;
    }

    private static int getShort(final byte[] bytes, final int at)
    {
        return (bytes[at] & 0xff) << 8 | bytes[at + 1] & 0xff;
    }

    private static int getInt(final byte[] bytes, final int at)
    {
        return (bytes[at] & 0xff) << 24 | (bytes[at + 1] & 0xff) << 16 | (bytes[at + 2] & 0xff) << 8 |
            bytes[at + 3] & 0xff;
    }
}

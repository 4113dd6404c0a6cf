package io.dkv.client.collection;

import io.dkv.client.KvException;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One segment's elements as read, changed in place and encoded again ({@link SegmentLayout}). */
final class Segment
{
    final List<byte[]> fields = new ArrayList<>();
    final List<byte[]> values = new ArrayList<>();

    static Segment decode(final byte[] encoded, final String where)
    {
        final Segment segment = new Segment();
        final ByteBuffer buffer = ByteBuffer.wrap(encoded);
        while (buffer.hasRemaining())
        {
            if (buffer.remaining() < SegmentLayout.ENTRY_HEADER_LENGTH)
            {
                throw new KvException(where + " ends in the middle of an element's lengths, at byte " +
                    buffer.position() + " of " + encoded.length);
            }
            final int fieldLength = buffer.getInt();
            final int valueLength = buffer.getInt();
            if (fieldLength < 0 || valueLength < 0 || (long)fieldLength + valueLength > buffer.remaining())
            {
                throw new KvException(where + " holds an element of field length " + fieldLength + " and value " +
                    "length " + valueLength + " with " + buffer.remaining() + " bytes left");
            }
            final byte[] field = new byte[fieldLength];
            final byte[] value = new byte[valueLength];
            buffer.get(field).get(value);
            segment.fields.add(field);
            segment.values.add(value);
        }
        return segment;
    }

    byte[] encode()
    {
        final ByteBuffer buffer = ByteBuffer.allocate((int)bytes());
        for (int i = 0; i < fields.size(); i++)
        {
            buffer.putInt(fields.get(i).length).putInt(values.get(i).length).put(fields.get(i)).put(values.get(i));
        }
        return buffer.array();
    }

    long bytes()
    {
        long bytes = 0;
        for (int i = 0; i < fields.size(); i++)
        {
            bytes += SegmentLayout.entryLength(fields.get(i).length, values.get(i).length);
        }
        return bytes;
    }

    int indexOf(final byte[] field)
    {
        for (int i = 0; i < fields.size(); i++)
        {
            if (Arrays.equals(fields.get(i), field))
            {
                return i;
            }
        }
        return -1;
    }

    void add(final byte[] field, final byte[] value)
    {
        fields.add(field);
        values.add(value);
    }

    /** Remove element {@code i}, the last one taking its place (a segment keeps no order). */
    void remove(final int i)
    {
        final int last = fields.size() - 1;
        fields.set(i, fields.get(last));
        values.set(i, values.get(last));
        fields.remove(last);
        values.remove(last);
    }

    int size()
    {
        return fields.size();
    }
}

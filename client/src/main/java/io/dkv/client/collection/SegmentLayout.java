package io.dkv.client.collection;

/**
 * A segment's value: its elements one after the other, in no order. A set's elements have no value (length 0).
 *
 * <pre>
 *   0  fieldLength  int
 *   4  valueLength  int
 *   8  field        fieldLength bytes
 *   .. value        valueLength bytes
 *   .. the next element
 * </pre>
 */
public final class SegmentLayout
{
    public static final int FIELD_LENGTH_OFFSET = 0;
    public static final int VALUE_LENGTH_OFFSET = 4;
    public static final int ENTRY_HEADER_LENGTH = 8;

    private SegmentLayout()
    {
    }

    /** @return the bytes an element of this field and value takes in a segment. */
    public static long entryLength(final int fieldLength, final int valueLength)
    {
        return ENTRY_HEADER_LENGTH + (long)fieldLength + valueLength;
    }
}

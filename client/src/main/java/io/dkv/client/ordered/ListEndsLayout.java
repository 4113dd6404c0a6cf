package io.dkv.client.ordered;

import io.dkv.client.KvException;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A list's end buffers, as its header holds them after its tree ({@code TreeCollectionLayout}): the first elements of
 * the list and its last ones, kept in the header so that a push or pop at an end, most of the time, writes the header
 * alone (client/README.md, "Sorted sets and lists").
 *
 * <pre>
 *   0  head count  int   elements in the head buffer: the list's first ones
 *   4  tail count  int   elements in the tail buffer: the list's last ones
 *   8  elements          the head's in the list's order, then the tail's, each:
 *        0  length  int
 *        4  bytes   length bytes
 * </pre>
 */
final class ListEndsLayout
{
    static final int HEAD_COUNT_OFFSET = 0;
    static final int TAIL_COUNT_OFFSET = 4;
    static final int ELEMENTS_OFFSET = 8;
    static final int ELEMENT_HEADER = Integer.BYTES;

    private ListEndsLayout()
    {
    }

    /** @return the bytes the buffers take, elements of {@code bytes} bytes with their lengths. */
    static int length(final int bytes)
    {
        return ELEMENTS_OFFSET + bytes;
    }

    static void write(final ByteBuffer header, final int offset, final List<byte[]> head, final List<byte[]> tail)
    {
        header.putInt(offset + HEAD_COUNT_OFFSET, head.size()).putInt(offset + TAIL_COUNT_OFFSET, tail.size());
        int at = offset + ELEMENTS_OFFSET;
        for (final List<byte[]> end : List.of(head, tail))
        {
            for (final byte[] element : end)
            {
                header.putInt(at, element.length).put(at + ELEMENT_HEADER, element);
                at += ELEMENT_HEADER + element.length;
            }
        }
    }

    /** Read the buffers at {@code offset} of {@code header} into {@code head} and {@code tail}. */
    static void read(final ByteBuffer header, final int offset, final List<byte[]> head, final List<byte[]> tail,
        final String owner)
    {
        if (header.limit() < offset + ELEMENTS_OFFSET)
        {
            throw new KvException("the header of the " + owner + " ends at byte " + header.limit() + ", before its " +
                "end buffers' counts at " + offset);
        }
        final int heads = header.getInt(offset + HEAD_COUNT_OFFSET);
        final int tails = header.getInt(offset + TAIL_COUNT_OFFSET);
        int at = offset + ELEMENTS_OFFSET;
        for (int i = 0; i < heads + tails; i++)
        {
            final int length = at + ELEMENT_HEADER <= header.limit() ? header.getInt(at) : -1;
            if (length < 0 || at + ELEMENT_HEADER + length > header.limit())
            {
                throw new KvException("the header of the " + owner + " is " + header.limit() + " bytes: its end " +
                    "buffers' element " + i + " of " + (heads + tails) + " at byte " + at + " does not fit");
            }
            final byte[] element = new byte[length];
            header.get(at + ELEMENT_HEADER, element);
            (i < heads ? head : tail).add(element);
            at += ELEMENT_HEADER + length;
        }
    }
}

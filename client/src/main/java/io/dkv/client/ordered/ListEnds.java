package io.dkv.client.ordered;

import java.util.ArrayList;
import java.util.List;

/**
 * A list's first and last elements kept in its header ({@link ListEndsLayout}) rather than in its tree: a push at an
 * end goes into that end's buffer while it has room, a pop takes from it, and only a full buffer (spilled into the
 * tree at once) or an empty one (refilled from the tree's end at once) changes the tree. So most pushes and pops write
 * the header alone: a block of under 1.2 KiB where a change of the tree writes its path, a 4 KiB node a level. The
 * list is the head buffer, then the tree, then the tail buffer.
 */
final class ListEnds
{
    /** The bytes each buffer holds at most, its elements' lengths counted. */
    static final int END_BYTES = 512;

    final List<byte[]> head = new ArrayList<>();
    final List<byte[]> tail = new ArrayList<>();
    private int headBytes;
    private int tailBytes;

    /** Count the bytes of the elements read into the buffers. */
    void loaded()
    {
        headBytes = bytes(head);
        tailBytes = bytes(tail);
    }

    private static int bytes(final List<byte[]> end)
    {
        int bytes = 0;
        for (final byte[] element : end)
        {
            bytes += ListEndsLayout.ELEMENT_HEADER + element.length;
        }
        return bytes;
    }

    int size()
    {
        return head.size() + tail.size();
    }

    /** @return the bytes they take in the header. */
    int length()
    {
        return ListEndsLayout.length(headBytes + tailBytes);
    }

    /** @return true when the buffer at the tail ({@code atTail}) or the head has room for {@code more} bytes. */
    boolean fits(final boolean atTail, final int more)
    {
        return (atTail ? tailBytes : headBytes) + more <= END_BYTES;
    }

    /** @return what an element of {@code length} bytes takes in a buffer. */
    static int cost(final int length)
    {
        return ListEndsLayout.ELEMENT_HEADER + length;
    }

    void add(final boolean atTail, final int index, final byte[] element)
    {
        end(atTail).add(index, element);
        count(atTail, cost(element.length));
    }

    byte[] remove(final boolean atTail, final int index)
    {
        final byte[] element = end(atTail).remove(index);
        count(atTail, -cost(element.length));
        return element;
    }

    byte[] set(final boolean atTail, final int index, final byte[] element)
    {
        final byte[] before = end(atTail).set(index, element);
        count(atTail, cost(element.length) - cost(before.length));
        return before;
    }

    /** Remove the elements from {@code from} up to (not including) {@code to} of the tail's buffer or the head's. */
    void removeRange(final boolean atTail, final int from, final int to)
    {
        final List<byte[]> range = end(atTail).subList(from, to);
        count(atTail, -bytes(range));
        range.clear();
    }

    /** Empty the buffer at the tail ({@code atTail}) or the head. @return its elements, in the list's order. */
    List<byte[]> takeAll(final boolean atTail)
    {
        final List<byte[]> taken = new ArrayList<>(end(atTail));
        end(atTail).clear();
        if (atTail)
        {
            tailBytes = 0;
        }
        else
        {
            headBytes = 0;
        }
        return taken;
    }

    void clear()
    {
        takeAll(false);
        takeAll(true);
    }

    List<byte[]> end(final boolean atTail)
    {
        return atTail ? tail : head;
    }

    private void count(final boolean atTail, final int delta)
    {
        if (atTail)
        {
            tailBytes += delta;
        }
        else
        {
            headBytes += delta;
        }
    }
}

package io.dkv.client.ordered;

import io.dkv.client.KvException;
import org.agrona.collections.LongArrayList;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One node of a keyspace index as read, changed and encoded again ({@link IndexNodeLayout}). */
final class IndexNode
{
    final boolean leaf;
    final List<byte[]> keys = new ArrayList<>();
    final LongArrayList children;
    long right;
    /** Null for the last node at its level. */
    byte[] high;

    IndexNode(final boolean leaf)
    {
        this.leaf = leaf;
        children = leaf ? null : new LongArrayList();
    }

    static IndexNode decode(final byte[] encoded, final String where)
    {
        try
        {
            final ByteBuffer buffer = ByteBuffer.wrap(encoded);
            final byte type = buffer.get(IndexNodeLayout.TYPE_OFFSET);
            if (type != TreeNodeLayout.LEAF && type != TreeNodeLayout.INNER)
            {
                throw new KvException(where + " has node type " + type + ", neither a leaf nor an inner node");
            }
            final IndexNode node = new IndexNode(type == TreeNodeLayout.LEAF);
            final int entries = buffer.getInt(IndexNodeLayout.ENTRIES_OFFSET);
            node.right = buffer.getLong(IndexNodeLayout.RIGHT_OFFSET);
            final int highLength = buffer.getInt(IndexNodeLayout.HIGH_LENGTH_OFFSET);
            buffer.position(IndexNodeLayout.HIGH_OFFSET);
            node.high = highLength == IndexNodeLayout.NO_HIGH ? null : bytes(buffer, highLength);
            for (int i = 0; i < entries; i++)
            {
                final long child = node.leaf ? 0 : buffer.getLong();
                final byte[] key = bytes(buffer, buffer.getInt());
                node.keys.add(key);
                if (!node.leaf)
                {
                    node.children.addLong(child);
                }
            }
            return node;
        }
        catch (final BufferUnderflowException | IllegalArgumentException | NegativeArraySizeException ex)
        {
            throw new KvException(where + " is not a keyspace index node: " + encoded.length + " bytes that end " +
                "before its entries do");
        }
    }

    private static byte[] bytes(final ByteBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    byte[] encode()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(bytes());
        buffer.put(leaf ? TreeNodeLayout.LEAF : TreeNodeLayout.INNER).put((byte)0).putShort((short)0)
            .putInt(keys.size()).putLong(right).putInt(high == null ? IndexNodeLayout.NO_HIGH : high.length);
        if (high != null)
        {
            buffer.put(high);
        }
        for (int i = 0; i < keys.size(); i++)
        {
            if (!leaf)
            {
                buffer.putLong(children.getLong(i));
            }
            buffer.putInt(keys.get(i).length).put(keys.get(i));
        }
        return buffer.array();
    }

    int bytes()
    {
        int bytes = IndexNodeLayout.HIGH_OFFSET + (high == null ? 0 : high.length);
        for (final byte[] key : keys)
        {
            bytes += (leaf ? IndexNodeLayout.LEAF_ENTRY_HEADER : IndexNodeLayout.INNER_ENTRY_HEADER) + key.length;
        }
        return bytes;
    }

    /** @return true when {@code key} lies at or past the high key: it belongs to a node to the right. */
    boolean beyond(final byte[] key)
    {
        return high != null && Arrays.compareUnsigned(key, high) >= 0;
    }

    /** @return a leaf's first entry at or above {@code key} (size() when none). */
    int lowerBound(final byte[] key)
    {
        int low = 0;
        int high = keys.size();
        while (low < high)
        {
            final int middle = (low + high) >>> 1;
            if (Arrays.compareUnsigned(keys.get(middle), key) < 0)
            {
                low = middle + 1;
            }
            else
            {
                high = middle;
            }
        }
        return low;
    }

    /** @return an inner node's child whose range holds {@code key}: the last entry whose separator is at most it. */
    int childFor(final byte[] key)
    {
        int low = 1;
        int high = keys.size() - 1;
        int child = 0;
        while (low <= high)
        {
            final int middle = (low + high) >>> 1;
            if (Arrays.compareUnsigned(keys.get(middle), key) <= 0)
            {
                child = middle;
                low = middle + 1;
            }
            else
            {
                high = middle - 1;
            }
        }
        return child;
    }

    /** @return a new node of this one's entries from {@code from} (its right neighbour-to-be), removed from this. */
    IndexNode splitOff(final int from)
    {
        final IndexNode upper = new IndexNode(leaf);
        for (int i = from; i < keys.size(); i++)
        {
            upper.keys.add(keys.get(i));
            if (!leaf)
            {
                upper.children.addLong(children.getLong(i));
            }
        }
        while (keys.size() > from)
        {
            keys.removeLast();
            if (!leaf)
            {
                children.removeAt(children.size() - 1);
            }
        }
        return upper;
    }
}

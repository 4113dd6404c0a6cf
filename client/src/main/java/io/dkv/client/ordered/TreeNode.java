package io.dkv.client.ordered;

import io.dkv.client.KvException;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.LongArrayList;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of an ordered tree as read, changed in place and encoded again ({@link TreeNodeLayout}). A leaf holds
 * keys and values; an inner node keys (separators), children and the elements under each child.
 */
final class TreeNode
{
    static final byte[] EMPTY = new byte[0];
    /** Entries a new node has room for before its lists grow. */
    private static final int NEW_CAPACITY = 16;

    final boolean leaf;
    final List<byte[]> keys;
    final List<byte[]> values;
    final IntArrayList children;
    final LongArrayList counts;
    /** The header's change count when it was written ({@link TreeNodeLayout}). */
    long stamp;
    private int bytes = TreeNodeLayout.HEADER_LENGTH;

    /** @param capacity entries the node is made with room for: a decoded node's own, and one to insert. */
    private TreeNode(final boolean leaf, final int capacity)
    {
        this.leaf = leaf;
        keys = new ArrayList<>(capacity);
        values = leaf ? new ArrayList<>(capacity) : null;
        children = leaf ? null : new IntArrayList(capacity, IntArrayList.DEFAULT_NULL_VALUE);
        counts = leaf ? null : new LongArrayList(capacity, LongArrayList.DEFAULT_NULL_VALUE);
    }

    static TreeNode newLeaf()
    {
        return new TreeNode(true, NEW_CAPACITY);
    }

    static TreeNode newInner()
    {
        return new TreeNode(false, NEW_CAPACITY);
    }

    static TreeNode decode(final byte[] encoded, final String where)
    {
        if (encoded.length < TreeNodeLayout.HEADER_LENGTH)
        {
            throw new KvException(where + " is " + encoded.length + " bytes, shorter than a node's header");
        }
        final ByteBuffer buffer = ByteBuffer.wrap(encoded);
        final byte type = buffer.get(TreeNodeLayout.TYPE_OFFSET);
        if (type != TreeNodeLayout.LEAF && type != TreeNodeLayout.INNER)
        {
            throw new KvException(where + " has node type " + type + ", neither a leaf nor an inner node");
        }
        final int entries = buffer.getInt(TreeNodeLayout.ENTRIES_OFFSET);
        if (entries < 0 || entries > encoded.length)
        {
            throw new KvException(where + " says it holds " + entries + " entries in " + encoded.length + " bytes");
        }
        // sized once: a node grown an entry at a time spent a twentieth of a ZADD's CPU regrowing its lists
        final TreeNode node = new TreeNode(type == TreeNodeLayout.LEAF, entries + 1);
        node.stamp = buffer.getLong(TreeNodeLayout.STAMP_OFFSET);
        buffer.position(TreeNodeLayout.HEADER_LENGTH);
        for (int i = 0; i < entries; i++)
        {
            if (node.leaf)
            {
                final int keyLength = buffer.getInt();
                final int valueLength = buffer.getInt();
                node.addElement(bytes(buffer, keyLength, where, i), bytes(buffer, valueLength, where, i));
            }
            else
            {
                final int child = buffer.getInt();
                final long count = buffer.getLong();
                final int keyLength = buffer.getInt();
                node.addChild(bytes(buffer, keyLength, where, i), child, count);
            }
        }
        if (buffer.hasRemaining())
        {
            throw new KvException(where + " has " + buffer.remaining() + " bytes after its " + entries + " entries");
        }
        return node;
    }

    private static byte[] bytes(final ByteBuffer buffer, final int length, final String where, final int entry)
    {
        if (length < 0 || length > buffer.remaining())
        {
            throw new KvException(where + " holds entry " + entry + " of length " + length + " with " +
                buffer.remaining() + " bytes left");
        }
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return bytes;
    }

    byte[] encode()
    {
        final ByteBuffer buffer = ByteBuffer.allocate(bytes);
        buffer.put(leaf ? TreeNodeLayout.LEAF : TreeNodeLayout.INNER).put((byte)0).putShort((short)0).putInt(size())
            .putLong(stamp);
        for (int i = 0; i < size(); i++)
        {
            final byte[] key = keys.get(i);
            if (leaf)
            {
                buffer.putInt(key.length).putInt(values.get(i).length).put(key).put(values.get(i));
            }
            else
            {
                buffer.putInt(children.getInt(i)).putLong(counts.getLong(i)).putInt(key.length).put(key);
            }
        }
        return buffer.array();
    }

    int size()
    {
        return keys.size();
    }

    /** @return the bytes it takes encoded. */
    int bytes()
    {
        return bytes;
    }

    /** @return the elements under it. */
    long total()
    {
        if (leaf)
        {
            return size();
        }
        long total = 0;
        for (int i = 0; i < size(); i++)
        {
            total += counts.getLong(i);
        }
        return total;
    }

    private int entryLength(final int i)
    {
        return leaf ? TreeNodeLayout.leafEntryLength(keys.get(i).length, values.get(i).length) :
            TreeNodeLayout.innerEntryLength(keys.get(i).length);
    }

    void addElement(final byte[] key, final byte[] value)
    {
        insertElement(size(), key, value);
    }

    void insertElement(final int at, final byte[] key, final byte[] value)
    {
        keys.add(at, key);
        values.add(at, value);
        bytes += TreeNodeLayout.leafEntryLength(key.length, value.length);
    }

    void setValue(final int at, final byte[] value)
    {
        bytes += value.length - values.get(at).length;
        values.set(at, value);
    }

    void addChild(final byte[] key, final int child, final long count)
    {
        insertChild(size(), key, child, count);
    }

    void insertChild(final int at, final byte[] key, final int child, final long count)
    {
        keys.add(at, key);
        children.addInt(at, child);
        counts.addLong(at, count);
        bytes += TreeNodeLayout.innerEntryLength(key.length);
    }

    void setKey(final int at, final byte[] key)
    {
        bytes += key.length - keys.get(at).length;
        keys.set(at, key);
    }

    void addCount(final int at, final long delta)
    {
        counts.setLong(at, counts.getLong(at) + delta);
    }

    void remove(final int at)
    {
        bytes -= entryLength(at);
        keys.remove(at);
        if (leaf)
        {
            values.remove(at);
        }
        else
        {
            children.removeAt(at);
            counts.removeAt(at);
        }
    }

    /** @return the first entry of the upper half by bytes: 1 to size - 1 (it has two entries or more). */
    int splitPoint()
    {
        final int half = (bytes - TreeNodeLayout.HEADER_LENGTH) / 2;
        int sum = 0;
        for (int i = 0; i < size() - 1; i++)
        {
            sum += entryLength(i);
            if (sum >= half)
            {
                return i + 1;
            }
        }
        return size() - 1;
    }

    /** @return a new node of this one's entries from {@code from}, which this one no longer holds. */
    TreeNode splitOff(final int from)
    {
        final TreeNode upper = new TreeNode(leaf, size() - from + 1);
        for (int i = from; i < size(); i++)
        {
            if (leaf)
            {
                upper.addElement(keys.get(i), values.get(i));
            }
            else
            {
                upper.addChild(keys.get(i), children.getInt(i), counts.getLong(i));
            }
        }
        while (size() > from)
        {
            remove(size() - 1);
        }
        return upper;
    }

    /** Append every entry of {@code other} (of the same type) after this one's. */
    void appendAll(final TreeNode other)
    {
        for (int i = 0; i < other.size(); i++)
        {
            if (leaf)
            {
                addElement(other.keys.get(i), other.values.get(i));
            }
            else
            {
                addChild(other.keys.get(i), other.children.getInt(i), other.counts.getLong(i));
            }
        }
    }

    /** Replace every entry by {@code other}'s (of the same type). */
    void replaceWith(final TreeNode other)
    {
        while (size() > 0)
        {
            remove(size() - 1);
        }
        appendAll(other);
    }
}

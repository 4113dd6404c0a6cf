package io.dkv.client.ordered;

import io.dkv.client.KvException;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.TransactionConflictException;
import io.dkv.format.KeyHash;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * The index of an ordered keyspace (client/README.md, "Ordered keyspaces"): a B-link tree of keys whose nodes are
 * blocks at reserved keys, changed in transactions that check only what they change. A walk down peeks at the inner
 * nodes (or takes them from this client's cache: they are hints) and reads the node it stops at through the
 * transaction, so that its commit checks it; a node whose high key the walk's key has reached is left for its right
 * neighbour, as in Lehman and Yao's tree, so a hint read before a split still leads to the right node. Inserts into
 * different leaves commit side by side; a split changes the node, its new right neighbour and the parent (read and
 * checked) in the insert's transaction, and the header only when the root splits. A leaf left empty is merged into
 * its left neighbour under the same parent.
 */
final class KeyIndex
{
    /** The segment number of an index node's reserved key (its id is the generation field). */
    static final int INDEX_NODE = -2;
    /** The segment number of an index header's reserved key. */
    static final int INDEX_HEADER = -3;
    private static final long NODE_WORD = ValueKind.word(ValueKind.SEGMENT, KvBlockLayout.NEVER);

    private final String name;
    final byte[] headerKey;
    private final int nodeBytes;
    private final ConcurrentHashMap<Long, IndexNode> hints = new ConcurrentHashMap<>();
    private final LongSupplier ids;
    private volatile long[] headerHint;

    /** @param nodeBytes the bytes above which a node splits. */
    KeyIndex(final String name, final int nodeBytes)
    {
        this(name, nodeBytes, KeyIndex::newId);
    }

    /** @param ids the ids of new nodes (random, never 0; the model check's are counted). */
    KeyIndex(final String name, final int nodeBytes, final LongSupplier ids)
    {
        this.name = name;
        this.nodeBytes = nodeBytes;
        this.ids = ids;
        final long generation = KeyHash.hash(("ordered keyspace " + name).getBytes(StandardCharsets.UTF_8));
        headerKey = ReservedKeys.segmentKey(generation == 0 ? 1 : generation, INDEX_HEADER);
    }

    /** Take {@code node} (an inner node) as a hint, and the header's root and height (the model check's start). */
    void remember(final long id, final IndexNode node, final long root, final int height)
    {
        if (!node.leaf)
        {
            hints.put(id, node);
        }
        headerHint = new long[]{root, height};
    }

    /** A node found at a level: its id and what the transaction read there. */
    private record Found(long id, IndexNode node)
    {
    }

    /** @return true when {@code key} was not in the index, and is now (when {@code tx} commits). */
    boolean insert(final IndexAccess tx, final byte[] key)
    {
        final long[] header = header(tx, false);
        if (header == null)
        {
            if (header(tx, true) != null)
            {
                throw stale("its header appeared while this transaction began");
            }
            final IndexNode root = new IndexNode(true);
            root.keys.add(key);
            final long id = ids.getAsLong();
            write(tx, id, root);
            writeHeader(tx, id, 1);
            return true;
        }
        final Found leaf = locate(tx, header, key, 0);
        final int at = leaf.node.lowerBound(key);
        if (at < leaf.node.keys.size() && Arrays.equals(leaf.node.keys.get(at), key))
        {
            return false;
        }
        leaf.node.keys.add(at, key);
        split(tx, leaf, 0);
        return true;
    }

    /** Split {@code found} (at {@code level}) while it is past the node bytes, up the tree; else write it. */
    private void split(final IndexAccess tx, final Found found, final int level)
    {
        final IndexNode node = found.node;
        if (node.bytes() <= nodeBytes || node.keys.size() < (node.leaf ? 2 : 4))
        {
            write(tx, found.id, node);
            return;
        }
        final IndexNode upper = node.splitOff(node.keys.size() / 2);
        final byte[] separator;
        if (node.leaf)
        {
            final byte[] last = node.keys.getLast();
            final byte[] first = upper.keys.getFirst();
            final int common = Arrays.mismatch(last, first);
            separator = Arrays.copyOf(first, common < 0 ? first.length : Math.min(first.length, common + 1));
        }
        else
        {
            separator = upper.keys.getFirst();
            upper.keys.set(0, TreeNode.EMPTY);
        }
        final long upperId = ids.getAsLong();
        upper.high = node.high;
        upper.right = node.right;
        node.high = separator;
        node.right = upperId;
        write(tx, found.id, node);
        write(tx, upperId, upper);
        final long[] header = header(tx, true);
        if (header == null)
        {
            throw stale("its header is gone");
        }
        if (header[1] == level + 1)
        {
            if (header[0] != found.id)
            {
                throw stale("its top level has a node besides the root");
            }
            final IndexNode root = new IndexNode(false);
            root.keys.add(TreeNode.EMPTY);
            root.children.addLong(found.id);
            root.keys.add(separator);
            root.children.addLong(upperId);
            final long rootId = ids.getAsLong();
            write(tx, rootId, root);
            writeHeader(tx, rootId, (int)header[1] + 1);
            return;
        }
        final Found parent = locate(tx, header, separator, level + 1);
        final int at = parent.node.childFor(separator) + 1;
        parent.node.keys.add(at, separator);
        parent.node.children.addLong(at, upperId);
        split(tx, parent, level + 1);
    }

    /** @return true when {@code key} was in the index, and is no longer (when {@code tx} commits). */
    boolean remove(final IndexAccess tx, final byte[] key)
    {
        final long[] header = header(tx, false);
        if (header == null)
        {
            return false;
        }
        final Found leaf = locate(tx, header, key, 0);
        final int at = leaf.node.lowerBound(key);
        if (at >= leaf.node.keys.size() || !Arrays.equals(leaf.node.keys.get(at), key))
        {
            return false;
        }
        leaf.node.keys.remove(at);
        write(tx, leaf.id, leaf.node);
        if (leaf.node.keys.isEmpty() && header[1] > 1)
        {
            final Found parent = locate(tx, header, key, 1);
            final int child = parent.node.childFor(key);
            if (parent.node.children.getLong(child) != leaf.id)
            {
                throw stale("a leaf's parent does not name it");
            }
            if (child > 0)
            {
                final long leftId = parent.node.children.getLong(child - 1);
                final IndexNode left = read(tx, leftId, true);
                if (left == null || left.right != leaf.id)
                {
                    throw stale("a leaf's left neighbour does not name it");
                }
                left.high = leaf.node.high;
                left.right = leaf.node.right;
                parent.node.keys.remove(child);
                parent.node.children.removeAt(child);
                write(tx, leftId, left);
                write(tx, parent.id, parent.node);
                tx.remove(nodeKey(leaf.id));
                hints.remove(leaf.id);
            }
        }
        return true;
    }

    /**
     * Visit the keys from {@code from} (inclusive) up to {@code to} (exclusive; null: no end), at most {@code count},
     * reading (and so checking at commit) every leaf they come from.
     */
    void scan(final IndexAccess tx, final byte[] from, final byte[] to, final int count, final List<byte[]> into)
    {
        final long[] header = header(tx, false);
        if (header == null || count <= 0)
        {
            return;
        }
        Found leaf = locate(tx, header, from, 0);
        int at = leaf.node.lowerBound(from);
        while (true)
        {
            for (; at < leaf.node.keys.size(); at++)
            {
                final byte[] key = leaf.node.keys.get(at);
                if (to != null && Arrays.compareUnsigned(key, to) >= 0)
                {
                    return;
                }
                into.add(key);
                if (into.size() == count)
                {
                    return;
                }
            }
            if (leaf.node.right == 0 || (to != null && leaf.node.high != null &&
                Arrays.compareUnsigned(leaf.node.high, to) >= 0))
            {
                return;
            }
            final long right = leaf.node.right;
            final IndexNode next = read(tx, right, true);
            if (next == null)
            {
                throw stale("a leaf's right neighbour is gone");
            }
            leaf = new Found(right, next);
            at = 0;
        }
    }

    /**
     * @return the node at {@code level} (0: the leaves) whose range holds {@code key}, read through {@code tx}: a walk
     * down the hints from the root the header names, then right while the key is at or past a node's high key.
     */
    private Found locate(final IndexAccess tx, final long[] header, final byte[] key, final int level)
    {
        long id = header[0];
        for (int at = (int)header[1] - 1; at > level; at--)
        {
            IndexNode node = hint(tx, id);
            while (node.beyond(key) && node.right != 0)
            {
                id = node.right;
                node = hint(tx, id);
            }
            id = node.children.getLong(node.childFor(key));
        }
        IndexNode node = read(tx, id, true);
        while (node != null && node.beyond(key) && node.right != 0)
        {
            id = node.right;
            node = read(tx, id, true);
        }
        if (node == null || node.leaf != (level == 0))
        {
            throw stale("a walk down met a node that is gone or of another level");
        }
        return new Found(id, node);
    }

    private IndexNode hint(final IndexAccess tx, final long id)
    {
        final IndexNode cached = hints.get(id);
        if (cached != null)
        {
            return cached;
        }
        final IndexNode node = read(tx, id, false);
        if (node == null || node.leaf)
        {
            throw stale("an inner node is gone");
        }
        hints.put(id, node);
        return node;
    }

    private IndexNode read(final IndexAccess tx, final long id, final boolean checked)
    {
        final byte[] key = nodeKey(id);
        final LogicalValue value = checked ? tx.read(key) : tx.peek(key);
        if (value == null)
        {
            hints.remove(id);
            return null;
        }
        final String where = "node " + Long.toHexString(id) + " of the ordered keyspace " + name;
        final IndexNode node = IndexNode.decode(value.value(), where);
        if (!node.leaf && checked)
        {
            // a copy of its own: the caller may change the node it is given, and hints are shared by every thread
            hints.put(id, IndexNode.decode(value.value(), where));
        }
        return node;
    }

    private void write(final IndexAccess tx, final long id, final IndexNode node)
    {
        final byte[] encoded = node.encode();
        if (encoded.length > KvBlockLayout.MAX_VALUE_LENGTH)
        {
            throw new KvException("node " + Long.toHexString(id) + " of the ordered keyspace " + name + " would " +
                "hold " + encoded.length + " bytes, past a value's " + KvBlockLayout.MAX_VALUE_LENGTH);
        }
        tx.write(nodeKey(id), encoded, NODE_WORD);
        if (!node.leaf)
        {
            hints.remove(id);
        }
    }

    /** @return {root id, height}: checked at commit ({@code checked}) or a hint; null when the index is empty. */
    private long[] header(final IndexAccess tx, final boolean checked)
    {
        if (!checked && headerHint != null)
        {
            return headerHint;
        }
        final LogicalValue value = checked ? tx.read(headerKey) : tx.peek(headerKey);
        if (value == null)
        {
            headerHint = null;
            return null;
        }
        final ByteBuffer buffer = ByteBuffer.wrap(value.value());
        final long[] header = {buffer.getLong(0), buffer.getInt(Long.BYTES)};
        headerHint = header;
        return header;
    }

    private void writeHeader(final IndexAccess tx, final long root, final int height)
    {
        tx.write(headerKey, ByteBuffer.allocate(Long.BYTES + Integer.BYTES).putLong(root).putInt(height).array(),
            NODE_WORD);
        headerHint = null;
    }

    private TransactionConflictException stale(final String what)
    {
        hints.clear();
        headerHint = null;
        return new TransactionConflictException("the index of ordered keyspace " + name + " changed under this " +
            "transaction's walk (" + what + "): run again");
    }

    /** @return the reserved key of the node of this id. */
    static byte[] nodeKey(final long id)
    {
        return ReservedKeys.segmentKey(id, INDEX_NODE);
    }

    private static long newId()
    {
        long id;
        do
        {
            id = ThreadLocalRandom.current().nextLong();
        }
        while (id == 0);
        return id;
    }
}

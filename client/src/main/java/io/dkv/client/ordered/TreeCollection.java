package io.dkv.client.ordered;

import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.WrongKindException;
import io.dkv.client.collection.Composite;
import io.dkv.client.txn.LogicalValue;
import io.dkv.client.txn.Transaction;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.ReservedKeys;
import io.dkv.format.ValueKind;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A sorted set's or a list's blocks as one transaction sees them (client/README.md, "Sorted sets and lists"): the
 * header at its key, read through the transaction (its commit checks it), and the nodes of its trees, read as they
 * are walked (peeks: every change of a node rewrites the header). {@link SortedSet} and {@link ElementList} give
 * them meaning; this class keeps the blocks, and {@link #write} hands the changed nodes and the header to the commit.
 */
public final class TreeCollection implements Composite
{
    /** A node splits past this many times {@code dkv.client.collection.segment.bytes}. */
    public static final int NODE_SEGMENTS = 4;
    /**
     * The most bytes one element may take with its key (a sorted set's member and score, a list's element): a node
     * holds at least one, and an inner node four of their keys, within a block.
     */
    public static final int MAX_ELEMENT_BYTES = 128 * 1024;

    private final Transaction tx;
    private final byte[] key;
    private final int kind;
    private final int nodeBytes;
    private final TreeRoot[] roots;
    private final OrderedTree[] trees;
    /** A list's first and last elements, kept in its header; null for a sorted set. */
    private final ListEnds ends;
    private TransactionNodes nodes;
    private NodeSpace space;
    private boolean exists;
    private boolean changed;
    private long expiryWord;
    private long generation;

    private TreeCollection(final Transaction tx, final byte[] key, final int kind, final int nodeBytes)
    {
        this.tx = tx;
        this.key = key;
        this.kind = kind;
        this.nodeBytes = nodeBytes;
        final int count = kind == ValueKind.ZSET ? 2 : 1;
        roots = new TreeRoot[count];
        trees = new OrderedTree[count];
        ends = kind == ValueKind.LIST ? new ListEnds() : null;
    }

    /**
     * Open the sorted set or list at {@code key} in {@code tx}: its header is read (and checked by the commit).
     *
     * @param kind         {@link ValueKind#ZSET} or {@link ValueKind#LIST}.
     * @param segmentBytes {@code KvClientContext.collectionSegmentBytes}; a node splits past {@link #NODE_SEGMENTS}
     *                     times it.
     * @throws WrongKindException when the key holds a value of another kind.
     */
    public static TreeCollection open(final Transaction tx, final byte[] key, final int kind, final int segmentBytes)
    {
        if (kind != ValueKind.ZSET && kind != ValueKind.LIST)
        {
            throw new IllegalArgumentException("a tree collection is a zset or a list, not a " + ValueKind.name(kind));
        }
        final TreeCollection value = new TreeCollection(tx, key, kind, NODE_SEGMENTS * segmentBytes);
        final LogicalValue header = tx.read(key);
        if (header != null)
        {
            WrongKindException.require(key, header.expiryWord(), kind);
            value.load(header);
        }
        else
        {
            for (int i = 0; i < value.roots.length; i++)
            {
                value.roots[i] = TreeRoot.empty();
            }
        }
        return value;
    }

    private void load(final LogicalValue header)
    {
        final byte[] value = header.value();
        final int length = TreeCollectionLayout.length(roots.length);
        final ByteBuffer buffer = ByteBuffer.wrap(value);
        final String owner = ValueKind.name(kind) + " at key " + KvErrors.describe(key);
        if (value.length < length || (ends == null && value.length != length) ||
            buffer.getInt(TreeCollectionLayout.TREES_OFFSET) != roots.length)
        {
            throw new KvException("the " + owner + " has a header of " + value.length + " bytes, not " + length +
                (ends == null ? "" : " or more"));
        }
        if (ends != null && value.length > length)
        {
            ListEndsLayout.read(buffer, length, ends.head, ends.tail, owner);
            ends.loaded();
        }
        exists = true;
        expiryWord = header.expiryWord();
        generation = buffer.getLong(TreeCollectionLayout.GENERATION_OFFSET);
        for (int i = 0; i < roots.length; i++)
        {
            roots[i] = TreeRootLayout.read(buffer, TreeCollectionLayout.FIRST_TREE_OFFSET + i * TreeRootLayout.LENGTH);
        }
        openSpace(buffer.getInt(TreeCollectionLayout.NEXT_NODE_OFFSET),
            buffer.getLong(TreeCollectionLayout.CHANGES_OFFSET));
    }

    private void openSpace(final int nextNode, final long changes)
    {
        final String owner = ValueKind.name(kind) + " at key " + KvErrors.describe(key);
        nodes = new TransactionNodes(tx, generation, ValueKind.expiryOf(expiryWord), owner);
        space = new NodeSpace(nodes, nextNode, nodeBytes, owner, changes);
        for (int i = 0; i < trees.length; i++)
        {
            trees[i] = new OrderedTree(space, roots[i]);
        }
    }

    /** @return tree {@code i}, made (with the value, when the key has none) if need be. */
    OrderedTree tree(final int i)
    {
        if (!exists)
        {
            exists = true;
            generation = drawGeneration();
            expiryWord = ValueKind.word(kind, KvBlockLayout.NEVER);
            openSpace(1, 0);
        }
        return trees[i];
    }

    /** @return tree {@code i} to read: null while the key holds nothing. */
    OrderedTree readTree(final int i)
    {
        return exists ? trees[i] : null;
    }

    /** @return the key it is at. */
    byte[] key()
    {
        return key;
    }

    /** @return a list's end buffers (null for a sorted set), which {@link #write} writes with the header. */
    ListEnds ends()
    {
        return ends;
    }

    public boolean exists()
    {
        return exists && size() > 0;
    }

    public long size()
    {
        return exists ? roots[0].count + (ends == null ? 0 : ends.size()) : 0;
    }

    /**
     * Estimate its nodes and their bytes, header aside (redis's MEMORY USAGE): from the paths to {@code samples}
     * ranks of each tree, or, with 0, exactly from every node ({@code OrderedTree.estimateNodes}).
     *
     * @return {nodes, bytes}.
     */
    public long[] estimateNodes(final int samples)
    {
        final long[] total = new long[2];
        if (exists)
        {
            for (final OrderedTree tree : trees)
            {
                final long[] estimate = tree.estimateNodes(samples);
                total[0] += estimate[0];
                total[1] += estimate[1];
            }
        }
        return total;
    }

    public long expireAtMillis()
    {
        return ValueKind.expiryOf(expiryWord);
    }

    public void expireAt(final long expireAtMillis)
    {
        if (!exists)
        {
            return;
        }
        expiryWord = ValueKind.withExpiry(expiryWord, expireAtMillis);
        nodes.expireAt(expireAtMillis);
        for (final OrderedTree tree : trees)
        {
            tree.rewriteAll();
        }
        changed = true;
    }

    public void drop()
    {
        if (!exists)
        {
            return;
        }
        for (final OrderedTree tree : trees)
        {
            tree.drop();
        }
        if (space.droppedCount() > 1)
        {
            // nodes of up to four segments each: removed once the header's removal committed, not as intents that
            // carry each node as a prior value, more than a full node keeps for deletes (Transaction.dropAfterCommit)
            final int[] numbers = space.takeDropped();
            for (final int number : numbers)
            {
                final byte[] node = ReservedKeys.segmentKey(generation, number);
                if (tx.writes(node))
                {
                    // written earlier in this transaction: removed with it, so that it does not write it again
                    tx.remove(node);
                }
            }
            tx.dropAfterCommit(generation, space.nextNode(), numbers);
        }
        space.flush();
        tx.remove(key);
        if (ends != null)
        {
            ends.clear();
        }
        exists = false;
        changed = false;
    }

    public void copyTo(final byte[] target)
    {
        if (!exists)
        {
            return;
        }
        refreshEnds();
        final long copyGeneration = drawGeneration();
        final TransactionNodes copy = new TransactionNodes(tx, copyGeneration, ValueKind.expiryOf(expiryWord),
            ValueKind.name(kind) + " at key " + KvErrors.describe(target));
        for (final OrderedTree tree : trees)
        {
            tree.forEachNode((number, node) -> copy.write(number, node.encode()));
        }
        tx.write(target, TreeCollectionLayout.encode(copyGeneration, space.nextNode(), space.changes(), roots, ends),
            expiryWord);
    }

    public void write()
    {
        if (!exists || (!changed && !space.changed()))
        {
            return;
        }
        if (size() == 0)
        {
            drop();
            return;
        }
        refreshEnds();
        space.flush();
        tx.write(key, TreeCollectionLayout.encode(generation, space.nextNode(), space.nextChanges(), roots, ends),
            expiryWord);
        changed = false;
    }

    private void refreshEnds()
    {
        for (final OrderedTree tree : trees)
        {
            tree.refreshEnds();
        }
    }

    /** Mark the header to be written even when no node changed. */
    void touch()
    {
        changed = true;
    }

    private static long drawGeneration()
    {
        long drawn;
        do
        {
            drawn = ThreadLocalRandom.current().nextLong();
        }
        while (drawn == 0);
        return drawn;
    }
}

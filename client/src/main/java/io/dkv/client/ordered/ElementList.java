package io.dkv.client.ordered;

import io.dkv.client.KvErrors;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;

/**
 * A list (redis's LPUSH, LRANGE...) as one transaction sees it: one tree of a {@link TreeCollection} in which
 * elements keep their positions (keys empty, values the elements), so that an element at any index is one walk down
 * and a push or pop at either end one path's change. Every change rewrites the header; {@link #write} hands it all
 * to the commit.
 */
public final class ElementList
{
    private static final int TREE = 0;
    private static final byte[] NO_KEY = new byte[0];

    /** The longest element a list holds: a leaf holds one at least, within a block. */
    public static final int MAX_ELEMENT_LENGTH = TreeCollection.MAX_ELEMENT_BYTES - TreeNodeLayout.LEAF_ENTRY_HEADER;

    private final TreeCollection blocks;

    private ElementList(final TreeCollection blocks)
    {
        this.blocks = blocks;
    }

    /**
     * Open the list at {@code key} in {@code tx}: its header is read (and checked by the commit).
     *
     * @throws io.dkv.client.WrongKindException when the key holds a value of another kind.
     */
    public static ElementList open(final Transaction tx, final byte[] key, final int segmentBytes)
    {
        return new ElementList(TreeCollection.open(tx, key, ValueKind.LIST, segmentBytes));
    }

    /** @return its blocks: what DEL, EXPIRE and COPY act on. */
    public TreeCollection blocks()
    {
        return blocks;
    }

    /** @return true when the key holds a list. */
    public boolean exists()
    {
        return blocks.exists();
    }

    /** @return its elements. */
    public long size()
    {
        return blocks.size();
    }

    /** @return the element at {@code index} (0 to size - 1). */
    public byte[] get(final long index)
    {
        final OrderedTree tree = blocks.readTree(TREE);
        prefetchAt(tree, index, size() - 1);
        return tree.at(index)[1];
    }

    /** Put {@code element} at {@code index} (0 to size), those from there on moving one up. */
    public void insert(final long index, final byte[] element)
    {
        requireFits(element);
        final OrderedTree tree = blocks.tree(TREE);
        prefetchAt(tree, index, size());
        tree.insertAt(index, NO_KEY, element);
    }

    /** @throws IllegalArgumentException when {@code element} is longer than {@link #MAX_ELEMENT_LENGTH}. */
    private void requireFits(final byte[] element)
    {
        if (element.length > MAX_ELEMENT_LENGTH)
        {
            throw new IllegalArgumentException("a list's element takes at most " + MAX_ELEMENT_LENGTH + " bytes; " +
                "this one takes " + element.length + " (key " + KvErrors.describe(blocks.key()) + ")");
        }
    }

    /** Add {@code element} at the head ({@code head}) or the tail. */
    public void push(final boolean head, final byte[] element)
    {
        insert(head ? 0 : size(), element);
    }

    /** @return the element at the head ({@code head}) or the tail, which the list no longer holds; null when empty. */
    public byte[] pop(final boolean head)
    {
        final long size = size();
        return size == 0 ? null : removeAt(head ? 0 : size - 1);
    }

    /** @return the element at {@code index}, which the list no longer holds. */
    public byte[] removeAt(final long index)
    {
        final OrderedTree tree = blocks.tree(TREE);
        prefetchAt(tree, index, size() - 1);
        return tree.removeAt(index)[1];
    }

    /** Replace the element at {@code index} (0 to size - 1). */
    public void set(final long index, final byte[] element)
    {
        requireFits(element);
        final OrderedTree tree = blocks.tree(TREE);
        prefetchAt(tree, index, size() - 1);
        tree.setAt(index, element);
    }

    /**
     * Remove the elements from index {@code from} up to (not including) {@code to}, the bounds clamped to the list
     * (LTRIM, a pop of many): the leaves wholly inside it dropped unread, the nodes at its edges changed.
     */
    public void removeRange(final long from, final long to)
    {
        if (Math.max(0, from) < Math.min(size(), to))
        {
            final OrderedTree tree = blocks.tree(TREE);
            prefetchAt(tree, from <= 0 ? 0 : to >= size() ? size() : from, size());
            tree.removeRange(from, to);
        }
    }

    /**
     * Visit the elements from index {@code from} up to (not including) {@code to}, or {@code reverse}, from index
     * {@code to - 1} down, until the visitor says stop.
     */
    public void forEach(final long from, final long to, final boolean reverse, final ElementVisitor visitor)
    {
        final OrderedTree tree = blocks.readTree(TREE);
        if (tree != null)
        {
            prefetchAt(tree, reverse ? Math.min(to, size()) - 1 : from, size() - 1);
            tree.forEach(from, to, reverse, (key, value) -> visitor.visit(value));
        }
    }

    /**
     * When {@code index} is at an end (0, or {@code end} or past), have the tree read the path to it in one round trip,
     * as the header names it: a push or pop then costs the header's read, that round trip and the commit, whatever
     * the list's length.
     */
    private static void prefetchAt(final OrderedTree tree, final long index, final long end)
    {
        if (index <= 0)
        {
            tree.prefetchEnd(false);
        }
        else if (index >= end)
        {
            tree.prefetchEnd(true);
        }
    }

    /** Have {@link #write} write the header even when no element changed: redis's LTRIM counts as a change. */
    public void touch()
    {
        if (exists())
        {
            blocks.touch();
        }
    }

    /** Hand the changes to the transaction; a list left with no element is removed. */
    public void write()
    {
        blocks.write();
    }

    /** Sees elements until it answers false. */
    @FunctionalInterface
    public interface ElementVisitor
    {
        /** @return false to stop. */
        boolean visit(byte[] element);
    }
}

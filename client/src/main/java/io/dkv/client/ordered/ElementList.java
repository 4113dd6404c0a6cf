package io.dkv.client.ordered;

import io.dkv.client.KvErrors;
import io.dkv.client.txn.Transaction;
import io.dkv.format.ValueKind;

import java.util.ArrayList;
import java.util.List;

/**
 * A list (redis's LPUSH, LRANGE...) as one transaction sees it: its first and last elements in the header's end
 * buffers ({@link ListEnds}), the rest in one tree of a {@link TreeCollection} in which elements keep their positions
 * (keys empty, values the elements). A push or pop at either end changes the header alone while that end's buffer
 * has room or elements; a full buffer spills into the tree, an empty one is refilled from it (half a buffer), each one
 * path's change; an element at any index is a look into a buffer or one walk down. Every change rewrites the header;
 * {@link #write} hands it all to the commit.
 */
public final class ElementList
{
    private static final int TREE = 0;
    private static final byte[] NO_KEY = new byte[0];

    /** The longest element a list holds: a leaf holds one at least, within a block. */
    public static final int MAX_ELEMENT_LENGTH = TreeCollection.MAX_ELEMENT_BYTES - TreeNodeLayout.LEAF_ENTRY_HEADER;

    private final TreeCollection blocks;
    private final ListEnds ends;

    private ElementList(final TreeCollection blocks)
    {
        this.blocks = blocks;
        this.ends = blocks.ends();
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
        final long heads = ends.head.size();
        final long inTree = inTree();
        if (index < heads)
        {
            return ends.head.get((int)index);
        }
        if (index >= heads + inTree)
        {
            return ends.tail.get((int)(index - heads - inTree));
        }
        final OrderedTree tree = blocks.readTree(TREE);
        prefetchAt(tree, index - heads, inTree - 1);
        return tree.at(index - heads)[1];
    }

    /** Put {@code element} at {@code index} (0 to size), those from there on moving one up. */
    public void insert(final long index, final byte[] element)
    {
        requireFits(element);
        final OrderedTree tree = blocks.tree(TREE);
        final int cost = ListEnds.cost(element.length);
        if (cost <= ListEnds.END_BYTES && index <= ends.head.size())
        {
            if (!ends.fits(false, cost))
            {
                spill(false);
            }
            if (index <= ends.head.size())
            {
                ends.add(false, (int)index, element);
                blocks.touch();
                return;
            }
        }
        else if (cost <= ListEnds.END_BYTES && index >= ends.head.size() + tree.size())
        {
            if (!ends.fits(true, cost))
            {
                spill(true);
            }
            if (index >= ends.head.size() + tree.size())
            {
                ends.add(true, (int)(index - ends.head.size() - tree.size()), element);
                blocks.touch();
                return;
            }
        }
        // into the tree, the buffer on the far side of the index spilled first so that the order holds
        if (index < ends.head.size())
        {
            spill(false);
        }
        else if (index > ends.head.size() + tree.size())
        {
            spill(true);
        }
        final long rank = index - ends.head.size();
        prefetchAt(tree, rank, tree.size());
        tree.insertAt(rank, NO_KEY, element);
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
        final long heads = ends.head.size();
        if (index < heads)
        {
            blocks.touch();
            return ends.remove(false, (int)index);
        }
        if (index >= heads + tree.size())
        {
            blocks.touch();
            return ends.remove(true, (int)(index - heads - tree.size()));
        }
        // the tree's first or last element with its end's buffer empty: refill the buffer, so that the next pops
        // there change the header alone
        if (index == 0 && refill(false) > 0)
        {
            blocks.touch();
            return ends.remove(false, 0);
        }
        if (index == heads + tree.size() - 1 && ends.tail.isEmpty() && refill(true) > 0)
        {
            blocks.touch();
            return ends.remove(true, ends.tail.size() - 1);
        }
        prefetchAt(tree, index - heads, tree.size() - 1);
        return tree.removeAt(index - heads)[1];
    }

    /** Replace the element at {@code index} (0 to size - 1). */
    public void set(final long index, final byte[] element)
    {
        requireFits(element);
        final OrderedTree tree = blocks.tree(TREE);
        final int cost = ListEnds.cost(element.length);
        final long heads = ends.head.size();
        final boolean atTail = index >= heads + tree.size();
        if (index < heads || atTail)
        {
            final int at = (int)(atTail ? index - heads - tree.size() : index);
            if (ends.fits(atTail, cost - ListEnds.cost(ends.end(atTail).get(at).length)))
            {
                ends.set(atTail, at, element);
                blocks.touch();
                return;
            }
            spill(atTail);
        }
        final long rank = index - ends.head.size();
        prefetchAt(tree, rank, tree.size() - 1);
        tree.setAt(rank, element);
    }

    /**
     * Remove the elements from index {@code from} up to (not including) {@code to}, the bounds clamped to the list
     * (LTRIM, a pop of many): those in the end buffers taken out of them, the tree's leaves wholly inside the range
     * dropped unread, the nodes at its edges changed.
     */
    public void removeRange(final long from, final long to)
    {
        final long first = Math.max(0, from);
        final long end = Math.min(size(), to);
        if (first >= end)
        {
            return;
        }
        final OrderedTree tree = blocks.tree(TREE);
        final long heads = ends.head.size();
        final long tailStart = heads + tree.size();
        if (end > tailStart)
        {
            ends.removeRange(true, (int)(Math.max(first, tailStart) - tailStart), (int)(end - tailStart));
        }
        final long treeFrom = Math.max(first, heads) - heads;
        final long treeTo = Math.min(end, tailStart) - heads;
        if (treeFrom < treeTo)
        {
            prefetchAt(tree, treeFrom <= 0 ? 0 : treeTo >= tree.size() ? tree.size() : treeFrom, tree.size());
            tree.removeRange(treeFrom, treeTo);
        }
        if (first < heads)
        {
            ends.removeRange(false, (int)first, (int)Math.min(end, heads));
        }
        blocks.touch();
    }

    /**
     * Visit the elements from index {@code from} up to (not including) {@code to}, or {@code reverse}, from index
     * {@code to - 1} down, until the visitor says stop.
     */
    public void forEach(final long from, final long to, final boolean reverse, final ElementVisitor visitor)
    {
        final long first = Math.max(0, from);
        final long end = Math.min(size(), to);
        if (first >= end)
        {
            return;
        }
        final long heads = ends.head.size();
        final long tailStart = heads + inTree();
        if (reverse)
        {
            if (visitBuffer(ends.tail, first - tailStart, end - tailStart, true, visitor) &&
                visitTree(first - heads, Math.min(end, tailStart) - heads, true, visitor))
            {
                visitBuffer(ends.head, first, end, true, visitor);
            }
        }
        else if (visitBuffer(ends.head, first, end, false, visitor) &&
            visitTree(Math.max(first, heads) - heads, end - heads, false, visitor))
        {
            visitBuffer(ends.tail, first - tailStart, end - tailStart, false, visitor);
        }
    }

    /** Visit a buffer's elements from {@code from} to {@code to} (clamped to it). @return false when told to stop. */
    private static boolean visitBuffer(final List<byte[]> buffer, final long from, final long to,
        final boolean reverse, final ElementVisitor visitor)
    {
        final int first = (int)Math.max(0, from);
        final int end = (int)Math.min(buffer.size(), Math.max(0, to));
        for (int i = reverse ? end - 1 : first; reverse ? i >= first : i < end; i += reverse ? -1 : 1)
        {
            if (!visitor.visit(buffer.get(i)))
            {
                return false;
            }
        }
        return true;
    }

    /** Visit the tree's elements from rank {@code from} to {@code to} (clamped). @return false when told to stop. */
    private boolean visitTree(final long from, final long to, final boolean reverse, final ElementVisitor visitor)
    {
        final OrderedTree tree = blocks.readTree(TREE);
        final long first = Math.max(0, from);
        if (tree == null || first >= Math.min(tree.size(), to))
        {
            return true;
        }
        prefetchAt(tree, reverse ? Math.min(to, tree.size()) - 1 : first, tree.size() - 1);
        final boolean[] going = {true};
        tree.forEach(first, to, reverse, (key, value) -> going[0] = visitor.visit(value));
        return going[0];
    }

    /** Move every element of the tail's ({@code atTail}) or the head's buffer into the tree, at its end. */
    private void spill(final boolean atTail)
    {
        final List<byte[]> elements = ends.takeAll(atTail);
        if (elements.isEmpty())
        {
            return;
        }
        final OrderedTree tree = blocks.tree(TREE);
        tree.prefetchEnd(atTail);
        for (int i = 0; i < elements.size(); i++)
        {
            tree.insertAt(atTail ? tree.size() : i, NO_KEY, elements.get(i));
        }
        blocks.touch();
    }

    /**
     * Move elements from the tree's end into the empty buffer at that end ({@code atTail}, or the head), up to half
     * the buffer's bytes (so that pushes there find room before a spill): one change of the tree for many pops.
     *
     * @return how many moved.
     */
    private long refill(final boolean atTail)
    {
        final OrderedTree tree = blocks.tree(TREE);
        final List<byte[]> taken = new ArrayList<>();
        final int[] bytes = {0};
        tree.prefetchEnd(atTail);
        tree.forEach(0, tree.size(), atTail, (key, value) ->
        {
            bytes[0] += ListEnds.cost(value.length);
            if (bytes[0] > ListEnds.END_BYTES / 2 && !taken.isEmpty())
            {
                return false;
            }
            taken.add(value);
            return bytes[0] <= ListEnds.END_BYTES / 2;
        });
        if (taken.isEmpty() || ListEnds.cost(taken.getFirst().length) > ListEnds.END_BYTES)
        {
            return 0;
        }
        final long size = tree.size();
        tree.removeRange(atTail ? size - taken.size() : 0, atTail ? size : taken.size());
        for (final byte[] element : atTail ? taken.reversed() : taken)
        {
            ends.add(atTail, ends.end(atTail).size(), element);
        }
        return taken.size();
    }

    /**
     * When {@code rank} is at an end of the tree (0, or {@code end} or past), have the tree read the path to it in one
     * round trip, as the header names it: a change there then costs the header's read, that round trip and the
     * commit, whatever the list's length.
     */
    private static void prefetchAt(final OrderedTree tree, final long rank, final long end)
    {
        if (rank <= 0)
        {
            tree.prefetchEnd(false);
        }
        else if (rank >= end)
        {
            tree.prefetchEnd(true);
        }
    }

    private long inTree()
    {
        final OrderedTree tree = blocks.readTree(TREE);
        return tree == null ? 0 : tree.size();
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

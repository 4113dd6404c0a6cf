package io.dkv.client.ordered;

import io.dkv.client.KvException;
import org.agrona.collections.IntHashSet;

import java.util.Arrays;

/**
 * A counted B+tree over a {@link NodeSpace} (client/README.md, "Sorted sets and lists"): elements (a key and a value)
 * in leaves, each inner entry counting the elements under its child, so that the element at a rank and the rank of a
 * key are one walk down. A keyed tree keeps its elements in the order of their keys (unsigned bytes, each key once);
 * a list's tree keeps them in the order they were put, by position, their keys empty. A node past the space's node
 * bytes splits in two, a node under a quarter of them merges with a neighbour (or takes entries from it), so every
 * change reads and writes one path and a neighbour or two. The caller's transaction makes a change all at once.
 */
public final class OrderedTree
{
    /** Deeper than any tree of 2^31 node numbers gets with two entries a node. */
    static final int MAX_HEIGHT = 40;

    /**
     * An inner node splits only with this many children or more, so that each half keeps two: separators as long as
     * a key could otherwise split inner nodes into nodes of one child, and the tree would grow a level an insert.
     */
    static final int MIN_INNER_SPLIT = 4;

    private final NodeSpace space;
    private final TreeRoot state;
    private final int[] pathNode = new int[MAX_HEIGHT];
    private final int[] pathIndex = new int[MAX_HEIGHT];

    OrderedTree(final NodeSpace space, final TreeRoot state)
    {
        this.space = space;
        this.state = state;
    }

    /** @return its elements. */
    public long size()
    {
        return state.count;
    }

    TreeRoot state()
    {
        return state;
    }

    // ---------------------------------------------------------------------------------------------------- reads

    /** @return the value of the element of this key (a keyed tree), or null when it has none. */
    public byte[] get(final byte[] key)
    {
        if (state.count == 0)
        {
            return null;
        }
        descendToKey(key);
        final TreeNode leaf = leaf();
        final int at = pathIndex[state.height - 1];
        return at < leaf.size() && Arrays.equals(leaf.keys.get(at), key) ? leaf.values.get(at) : null;
    }

    /** @return how many elements have keys below {@code key} (unsigned bytes): the rank it has or would have. */
    public long rankBelow(final byte[] key)
    {
        return state.count == 0 ? 0 : descendToKey(key);
    }

    /** @return the element at {@code rank} (0 to size - 1): its key and its value. */
    public byte[][] at(final long rank)
    {
        requireRank(rank, state.count);
        descendToRank(rank);
        final int at = pathIndex[state.height - 1];
        return new byte[][] {leaf().keys.get(at), leaf().values.get(at)};
    }

    /**
     * Visit the elements from rank {@code from} up to (not including) {@code to}, or, {@code reverse}, from rank
     * {@code to - 1} down to {@code from}, until the visitor says stop.
     */
    public void forEach(final long from, final long to, final boolean reverse, final ElementVisitor visitor)
    {
        final long first = Math.max(0, from);
        final long end = Math.min(state.count, to);
        if (first >= end)
        {
            return;
        }
        descendToRank(reverse ? end - 1 : first);
        long left = end - first;
        final int leafLevel = state.height - 1;
        while (true)
        {
            final TreeNode leaf = leaf();
            int i = pathIndex[leafLevel];
            while (i >= 0 && i < leaf.size())
            {
                if (!visitor.visit(leaf.keys.get(i), leaf.values.get(i)) || --left == 0)
                {
                    return;
                }
                i += reverse ? -1 : 1;
            }
            if (!step(reverse))
            {
                return;
            }
        }
    }

    /** Move the path to the next leaf (or the one before): its first entry (its last). @return false at the end. */
    private boolean step(final boolean reverse)
    {
        int level = state.height - 2;
        while (level >= 0)
        {
            final TreeNode node = space.node(pathNode[level]);
            final int next = pathIndex[level] + (reverse ? -1 : 1);
            if (next >= 0 && next < node.size())
            {
                pathIndex[level] = next;
                break;
            }
            level--;
        }
        if (level < 0)
        {
            return false;
        }
        for (int l = level; l < state.height - 1; l++)
        {
            final int child = space.node(pathNode[l]).children.getInt(pathIndex[l]);
            pathNode[l + 1] = child;
            final TreeNode below = space.node(child);
            pathIndex[l + 1] = reverse ? below.size() - 1 : 0;
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------------- changes

    /**
     * Set the value of the element of this key (a keyed tree), adding it when it has none.
     *
     * @return true when the element is new.
     */
    public boolean put(final byte[] key, final byte[] value)
    {
        if (state.count == 0)
        {
            insertAt(0, key, value);
            return true;
        }
        descendToKey(key);
        final TreeNode leaf = leaf();
        final int at = pathIndex[state.height - 1];
        if (at < leaf.size() && Arrays.equals(leaf.keys.get(at), key))
        {
            leaf.setValue(at, value);
            space.changed(pathNode[state.height - 1]);
            fixOverflow();
            return false;
        }
        insertAtPath(key, value);
        return true;
    }

    /** @return true when it had an element of this key (a keyed tree), which it no longer has. */
    public boolean remove(final byte[] key)
    {
        if (state.count == 0)
        {
            return false;
        }
        descendToKey(key);
        final TreeNode leaf = leaf();
        final int at = pathIndex[state.height - 1];
        if (at >= leaf.size() || !Arrays.equals(leaf.keys.get(at), key))
        {
            return false;
        }
        removeAtPath();
        return true;
    }

    /** Put an element at {@code rank} (0 to size), those from there on moving one up (a list's insert). */
    public void insertAt(final long rank, final byte[] key, final byte[] value)
    {
        requireRank(rank, state.count + 1);
        if (state.count == 0)
        {
            final TreeNode leaf = TreeNode.newLeaf();
            leaf.addElement(key, value);
            state.root = space.allocate(leaf);
            state.height = 1;
            state.count = 1;
            return;
        }
        descendToRank(rank);
        insertAtPath(key, value);
    }

    /** @return the element at {@code rank}, which the tree no longer holds: its key and value. */
    public byte[][] removeAt(final long rank)
    {
        requireRank(rank, state.count);
        descendToRank(rank);
        final TreeNode leaf = leaf();
        final int at = pathIndex[state.height - 1];
        final byte[][] element = {leaf.keys.get(at), leaf.values.get(at)};
        removeAtPath();
        return element;
    }

    /** Replace the value of the element at {@code rank} (a list's LSET). */
    public void setAt(final long rank, final byte[] value)
    {
        requireRank(rank, state.count);
        descendToRank(rank);
        leaf().setValue(pathIndex[state.height - 1], value);
        space.changed(pathNode[state.height - 1]);
        fixOverflow();
    }

    /**
     * Remove the elements from rank {@code from} up to (not including) {@code to} (a list's LTRIM, a pop of many):
     * the subtrees wholly inside the range are dropped without reading their leaves, the nodes the range cuts lose
     * their part of it, and the nodes left along its edges under a quarter of the node bytes (or with one child) are
     * merged with a neighbour, as {@link #removeAt} leaves them.
     */
    public void removeRange(final long from, final long to)
    {
        final long first = Math.max(0, from);
        final long end = Math.min(state.count, to);
        if (first >= end)
        {
            return;
        }
        if (first == 0 && end == state.count)
        {
            drop();
            return;
        }
        cut(state.root, state.height - 1, first, end);
        state.count -= end - first;
        mend(first == 0 ? 0 : first - 1);
        if (first > 0 && first < state.count)
        {
            mend(first);
        }
    }

    /** Remove the elements from {@code from} to {@code to} (ranks under it) under node {@code number}. */
    private void cut(final int number, final int levelsBelow, final long from, final long to)
    {
        final TreeNode node = space.node(number);
        space.changed(number);
        if (levelsBelow == 0)
        {
            for (int i = (int)to - 1; i >= from; i--)
            {
                node.remove(i);
            }
            return;
        }
        long start = 0;
        int i = 0;
        while (i < node.size() && start < to)
        {
            final long end = start + node.counts.getLong(i);
            if (from <= start && end <= to)
            {
                drop(node.children.getInt(i), levelsBelow - 1);
                node.remove(i);
            }
            else
            {
                if (end > from)
                {
                    final long cutFrom = Math.max(from, start) - start;
                    final long cutTo = Math.min(to, end) - start;
                    cut(node.children.getInt(i), levelsBelow - 1, cutFrom, cutTo);
                    node.addCount(i, cutFrom - cutTo);
                }
                i++;
            }
            start = end;
        }
        if (node.keys.getFirst().length > 0)
        {
            // the first entry keeps no separator; the parent's still bounds what is under this node
            node.setKey(0, TreeNode.EMPTY);
        }
    }

    /**
     * Merge (or even out) the nodes on the path to {@code rank} that a cut left small with a neighbour, from the leaf
     * up; a node whose parent has one child waits for the parent's merge, and another pass.
     */
    private void mend(final long rank)
    {
        boolean again = true;
        for (int pass = 0; again && pass < MAX_HEIGHT; pass++)
        {
            again = false;
            boolean waiting = false;
            for (int level = state.height - 1; level > 0; level--)
            {
                descendToRank(rank);
                final TreeNode node = space.node(pathNode[level]);
                if (node.bytes() >= space.nodeBytes() / 4 && (node.leaf || node.size() > 1))
                {
                    continue;
                }
                if (space.node(pathNode[level - 1]).size() < 2)
                {
                    waiting = true;
                    continue;
                }
                mergeWithNeighbour(level);
                again |= waiting;
            }
            while (state.height > 1 && space.node(state.root).size() == 1)
            {
                final int only = space.node(state.root).children.getInt(0);
                space.drop(state.root);
                state.root = only;
                state.height--;
            }
        }
    }

    /**
     * Merge the path's node at {@code level} with a neighbour, or even the two out when one node would not hold them.
     */
    private void mergeWithNeighbour(final int level)
    {
        final TreeNode parent = space.node(pathNode[level - 1]);
        final int lowerAt = Math.max(0, pathIndex[level - 1] - 1);
        final int lowerNumber = parent.children.getInt(lowerAt);
        final int upperNumber = parent.children.getInt(lowerAt + 1);
        final TreeNode lower = space.node(lowerNumber);
        final TreeNode upper = space.node(upperNumber);
        if (!lower.leaf)
        {
            upper.setKey(0, parent.keys.get(lowerAt + 1));
        }
        lower.appendAll(upper);
        space.changed(lowerNumber);
        space.changed(pathNode[level - 1]);
        if (lower.bytes() <= space.nodeBytes())
        {
            parent.addCount(lowerAt, parent.counts.getLong(lowerAt + 1));
            parent.remove(lowerAt + 1);
            space.drop(upperNumber);
            return;
        }
        final TreeNode evened = lower.splitOff(lower.splitPoint());
        parent.setKey(lowerAt + 1, separatorOf(lower, evened));
        upper.replaceWith(evened);
        parent.counts.setLong(lowerAt, lower.total());
        parent.counts.setLong(lowerAt + 1, upper.total());
        space.changed(upperNumber);
    }

    /** Remove every node without reading the leaves (the nodes above them name them). */
    public void drop()
    {
        if (state.height > 0)
        {
            drop(state.root, state.height - 1);
        }
        state.root = 0;
        state.height = 0;
        state.count = 0;
    }

    private void drop(final int number, final int levelsBelow)
    {
        if (levelsBelow > 0)
        {
            final TreeNode node = space.node(number);
            for (int i = 0; i < node.size(); i++)
            {
                drop(node.children.getInt(i), levelsBelow - 1);
            }
        }
        space.drop(number);
    }

    /** Visit every node, each read once: the root, then each child before the next (a copy of the tree). */
    void forEachNode(final NodeVisitor visitor)
    {
        if (state.height > 0)
        {
            visitNodes(state.root, state.height - 1, visitor);
        }
    }

    private void visitNodes(final int number, final int levelsBelow, final NodeVisitor visitor)
    {
        final TreeNode node = space.node(number);
        visitor.visit(number, node);
        if (levelsBelow > 0)
        {
            for (int i = 0; i < node.size(); i++)
            {
                visitNodes(node.children.getInt(i), levelsBelow - 1, visitor);
            }
        }
    }

    /** Read every node and mark it written again (a new expiry, or a copy under another generation). */
    public void rewriteAll()
    {
        if (state.height > 0)
        {
            rewrite(state.root, state.height - 1);
        }
    }

    private void rewrite(final int number, final int levelsBelow)
    {
        space.rewrite(number);
        if (levelsBelow > 0)
        {
            final TreeNode node = space.node(number);
            for (int i = 0; i < node.size(); i++)
            {
                rewrite(node.children.getInt(i), levelsBelow - 1);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------- sizes

    /**
     * Estimate the tree's nodes and their encoded bytes (redis's MEMORY USAGE ... SAMPLES): the paths to
     * {@code samples} ranks spread over the tree are read, and each level's node count is the one below over the
     * children a node there was seen to have, its bytes that count times the bytes its nodes were seen to take.
     * With {@code samples} 0, or as many as the elements, every node is read and the answer is exact.
     *
     * @return {nodes, bytes}.
     */
    long[] estimateNodes(final int samples)
    {
        if (state.height == 0)
        {
            return new long[] {0, 0};
        }
        if (samples <= 0 || samples >= state.count)
        {
            final long[] exact = new long[2];
            forEachNode((number, node) ->
            {
                exact[0]++;
                exact[1] += node.bytes();
            });
            return exact;
        }
        final int height = state.height;
        final long[] seenBytes = new long[height];
        final long[] seenEntries = new long[height];
        final long[] seenNodes = new long[height];
        final IntHashSet seen = new IntHashSet();
        for (int i = 0; i < samples; i++)
        {
            descendToRank((long)((i + 0.5) * state.count / samples));
            for (int level = 0; level < height; level++)
            {
                if (seen.add(pathNode[level]))
                {
                    final TreeNode node = space.node(pathNode[level]);
                    seenBytes[level] += node.bytes();
                    seenEntries[level] += node.size();
                    seenNodes[level]++;
                }
            }
        }
        // the leaves: the elements over a leaf's seen; each level above: the nodes below over a node's seen children
        double nodes = (double)state.count * seenNodes[height - 1] / seenEntries[height - 1];
        double bytes = nodes * seenBytes[height - 1] / seenNodes[height - 1];
        double all = nodes;
        for (int level = height - 2; level >= 0; level--)
        {
            nodes = level == 0 ? 1 : Math.max(1, nodes * seenNodes[level] / seenEntries[level]);
            bytes += nodes * seenBytes[level] / seenNodes[level];
            all += nodes;
        }
        return new long[] {Math.round(all), Math.round(bytes)};
    }

    // ---------------------------------------------------------------------------------------------------- end paths

    /**
     * Read the nodes of the path to the last element ({@code last}) or the first, as the header names them, in one
     * round trip, so that a push, a pop or a range at that end walks down without another read.
     */
    public void prefetchEnd(final boolean last)
    {
        if (state.pathLevels > 0 && state.pathLevels == state.height && state.first[0] == state.root)
        {
            space.prefetch(state.endPath(last), state.pathLevels);
        }
    }

    /**
     * Bring the end paths the header keeps up to the tree as changed: the owner calls it before the header is
     * written. A node this space never read is as the header's instant had it, so where the header's path names it
     * its next node is the path's next; only a node reached another way is read (a cut's new edge, rarely).
     */
    void refreshEnds()
    {
        if (state.height == 0 || state.height > TreeRoot.PATH_LEVELS)
        {
            state.pathLevels = 0;
            return;
        }
        final int[] first = new int[state.height];
        final int[] last = new int[state.height];
        walkEnd(false, first);
        walkEnd(true, last);
        System.arraycopy(first, 0, state.first, 0, first.length);
        System.arraycopy(last, 0, state.last, 0, last.length);
        state.pathLevels = state.height;
    }

    private void walkEnd(final boolean last, final int[] walked)
    {
        final int[] known = state.endPath(last);
        int number = state.root;
        for (int level = 0; level < state.height; level++)
        {
            walked[level] = number;
            if (level == state.height - 1)
            {
                break;
            }
            int child = 0;
            if (!space.isLoaded(number))
            {
                for (int at = 0; at + 1 < state.pathLevels; at++)
                {
                    if (known[at] == number)
                    {
                        child = known[at + 1];
                        break;
                    }
                }
            }
            if (child == 0)
            {
                final TreeNode node = space.node(number);
                child = node.children.getInt(last ? node.size() - 1 : 0);
            }
            number = child;
        }
    }

    // ---------------------------------------------------------------------------------------------------- the walk

    private TreeNode leaf()
    {
        return space.node(pathNode[state.height - 1]);
    }

    /** Walk down to the first element at or above {@code key}. @return the number of elements below it. */
    private long descendToKey(final byte[] key)
    {
        long below = 0;
        int number = state.root;
        for (int level = 0; level < state.height - 1; level++)
        {
            final TreeNode node = space.node(number);
            int lo = 1;
            int hi = node.size() - 1;
            int child = 0;
            while (lo <= hi)
            {
                final int mid = (lo + hi) >>> 1;
                if (Arrays.compareUnsigned(node.keys.get(mid), key) <= 0)
                {
                    child = mid;
                    lo = mid + 1;
                }
                else
                {
                    hi = mid - 1;
                }
            }
            for (int i = 0; i < child; i++)
            {
                below += node.counts.getLong(i);
            }
            pathNode[level] = number;
            pathIndex[level] = child;
            number = node.children.getInt(child);
        }
        final TreeNode leaf = space.node(number);
        int lo = 0;
        int hi = leaf.size();
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (Arrays.compareUnsigned(leaf.keys.get(mid), key) < 0)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }
        pathNode[state.height - 1] = number;
        pathIndex[state.height - 1] = lo;
        return below + lo;
    }

    /** Walk down to the element at {@code rank} (or, at size, just past the last one). */
    private void descendToRank(final long rank)
    {
        long left = rank;
        int number = state.root;
        for (int level = 0; level < state.height - 1; level++)
        {
            final TreeNode node = space.node(number);
            int child = 0;
            while (child < node.size() - 1 && left >= node.counts.getLong(child))
            {
                left -= node.counts.getLong(child);
                child++;
            }
            pathNode[level] = number;
            pathIndex[level] = child;
            number = node.children.getInt(child);
        }
        final TreeNode leaf = space.node(number);
        if (left > leaf.size())
        {
            throw new KvException("the " + space.owner() + " counts " + state.count + " elements but its tree holds " +
                "fewer: rank " + rank + " is past node " + number + "'s " + leaf.size());
        }
        pathNode[state.height - 1] = number;
        pathIndex[state.height - 1] = (int)left;
    }

    private void insertAtPath(final byte[] key, final byte[] value)
    {
        final int leafLevel = state.height - 1;
        leaf().insertElement(pathIndex[leafLevel], key, value);
        space.changed(pathNode[leafLevel]);
        countAlongPath(1);
        fixOverflow();
    }

    private void removeAtPath()
    {
        final int leafLevel = state.height - 1;
        leaf().remove(pathIndex[leafLevel]);
        space.changed(pathNode[leafLevel]);
        countAlongPath(-1);
        fixUnderflow();
    }

    private void countAlongPath(final int delta)
    {
        for (int level = 0; level < state.height - 1; level++)
        {
            space.node(pathNode[level]).addCount(pathIndex[level], delta);
            space.changed(pathNode[level]);
        }
        state.count += delta;
    }

    /** Split the path's nodes that grew past the node bytes, from the leaf up; a root that splits gets a parent. */
    private void fixOverflow()
    {
        for (int level = state.height - 1; level >= 0; level--)
        {
            final int number = pathNode[level];
            final TreeNode node = space.node(number);
            if (node.bytes() <= space.nodeBytes() || node.size() < (node.leaf ? 2 : MIN_INNER_SPLIT))
            {
                return;
            }
            final TreeNode upper = node.splitOff(node.splitPoint());
            final byte[] separator = separatorOf(node, upper);
            final long upperCount = upper.total();
            final int upperNumber = space.allocate(upper);
            space.changed(number);
            if (level == 0)
            {
                final TreeNode root = TreeNode.newInner();
                root.addChild(TreeNode.EMPTY, number, node.total());
                root.addChild(separator, upperNumber, upperCount);
                state.root = space.allocate(root);
                state.height++;
                return;
            }
            final TreeNode parent = space.node(pathNode[level - 1]);
            final int at = pathIndex[level - 1];
            parent.addCount(at, -upperCount);
            parent.insertChild(at + 1, separator, upperNumber, upperCount);
            space.changed(pathNode[level - 1]);
        }
    }

    /**
     * @return the key that parts {@code lower} from {@code upper} (its neighbour above) in their parent: a leaf's the
     * shortest prefix of the upper's first key that sorts above the lower's last; an inner node's the upper's first
     * separator, which moves up (the upper's first entry keeps none).
     */
    private static byte[] separatorOf(final TreeNode lower, final TreeNode upper)
    {
        if (!upper.leaf)
        {
            final byte[] separator = upper.keys.getFirst();
            upper.setKey(0, TreeNode.EMPTY);
            return separator;
        }
        final byte[] last = lower.keys.getLast();
        final byte[] first = upper.keys.getFirst();
        if (first.length == 0)
        {
            return TreeNode.EMPTY;
        }
        final int common = Arrays.mismatch(last, first);
        return Arrays.copyOf(first, Math.min(first.length, common < 0 ? first.length : common + 1));
    }

    /**
     * Merge the path's nodes that fell under a quarter of the node bytes (or empty) with a neighbour, or even them out
     * with it when both would not fit one node, from the leaf up; a root left with one child hands the tree to it.
     */
    private void fixUnderflow()
    {
        for (int level = state.height - 1; level > 0; level--)
        {
            final TreeNode node = space.node(pathNode[level]);
            if (node.size() > 0 && node.bytes() >= space.nodeBytes() / 4)
            {
                break;
            }
            final TreeNode parent = space.node(pathNode[level - 1]);
            if (parent.size() < 2)
            {
                break;
            }
            final int lowerAt = Math.max(0, pathIndex[level - 1] - 1);
            final int lowerNumber = parent.children.getInt(lowerAt);
            final int upperNumber = parent.children.getInt(lowerAt + 1);
            final TreeNode lower = space.node(lowerNumber);
            final TreeNode upper = space.node(upperNumber);
            if (!lower.leaf)
            {
                // the separator comes down to the upper's first entry, which had none
                upper.setKey(0, parent.keys.get(lowerAt + 1));
            }
            if (lower.size() == 0 || upper.size() == 0 ||
                lower.bytes() + upper.bytes() - TreeNodeLayout.HEADER_LENGTH <= space.nodeBytes())
            {
                lower.appendAll(upper);
                parent.addCount(lowerAt, parent.counts.getLong(lowerAt + 1));
                parent.remove(lowerAt + 1);
                space.drop(upperNumber);
                space.changed(lowerNumber);
                space.changed(pathNode[level - 1]);
                continue;
            }
            lower.appendAll(upper);
            final TreeNode evened = lower.splitOff(lower.splitPoint());
            parent.setKey(lowerAt + 1, separatorOf(lower, evened));
            upper.replaceWith(evened);
            parent.counts.setLong(lowerAt, lower.total());
            parent.counts.setLong(lowerAt + 1, upper.total());
            space.changed(lowerNumber);
            space.changed(upperNumber);
            space.changed(pathNode[level - 1]);
            break;
        }
        while (state.height > 1 && space.node(state.root).size() == 1)
        {
            final int only = space.node(state.root).children.getInt(0);
            space.drop(state.root);
            state.root = only;
            state.height--;
        }
        if (state.height == 1 && space.node(state.root).size() == 0)
        {
            space.drop(state.root);
            state.root = 0;
            state.height = 0;
        }
    }

    private void requireRank(final long rank, final long bound)
    {
        if (rank < 0 || rank >= bound)
        {
            throw new IndexOutOfBoundsException("rank " + rank + " is outside 0 to " + (bound - 1) + " in the " +
                space.owner() + " of " + state.count + " elements");
        }
    }

    /** Sees a tree's nodes. */
    @FunctionalInterface
    interface NodeVisitor
    {
        void visit(int number, TreeNode node);
    }

    /** Sees elements in order until it answers false. */
    @FunctionalInterface
    public interface ElementVisitor
    {
        /** @return false to stop. */
        boolean visit(byte[] key, byte[] value);
    }
}

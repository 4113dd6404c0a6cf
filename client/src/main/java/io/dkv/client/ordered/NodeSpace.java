package io.dkv.client.ordered;

import io.dkv.client.KvException;
import io.dkv.client.txn.TransactionConflictException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.IntHashSet;

/**
 * The nodes of one owner's trees (a sorted set's two, a list's one) as one transaction sees them: read once each,
 * changed in place, and handed to the store by {@link #flush}. Node numbers are drawn from a counter the owner's
 * header keeps and never used twice in one generation, so a reader holding a stale number finds nothing, never
 * another node.
 */
final class NodeSpace
{
    private final NodeStore store;
    private final int nodeBytes;
    private final String owner;
    /** The change count of the header this space's transaction read; {@link Long#MAX_VALUE}: none, unchecked. */
    private final long changes;
    private final Int2ObjectHashMap<TreeNode> loaded = new Int2ObjectHashMap<>();
    private final IntHashSet dirty = new IntHashSet();
    private final IntHashSet dropped = new IntHashSet();
    private int nextNode;

    /**
     * @param nextNode  the first number no node of this generation has had (1 for a new owner).
     * @param nodeBytes the bytes above which a node splits.
     * @param owner     what the nodes belong to, for errors.
     */
    NodeSpace(final NodeStore store, final int nextNode, final int nodeBytes, final String owner)
    {
        this(store, nextNode, nodeBytes, owner, Long.MAX_VALUE);
    }

    /**
     * @param changes the change count of the header read: a node stamped later, or a node missing, means the
     *                transaction reads two instants, and it runs again ({@link TransactionConflictException}); nodes
     *                written are stamped one more.
     */
    NodeSpace(final NodeStore store, final int nextNode, final int nodeBytes, final String owner, final long changes)
    {
        this.store = store;
        this.nextNode = nextNode;
        this.nodeBytes = nodeBytes;
        this.owner = owner;
        this.changes = changes;
    }

    /** @return the change count of the header read (0 where unchecked). */
    long changes()
    {
        return changes == Long.MAX_VALUE ? 0 : changes;
    }

    /** @return the change count the header gets with this space's changes. */
    long nextChanges()
    {
        return changes == Long.MAX_VALUE ? 0 : changes + 1;
    }

    int nodeBytes()
    {
        return nodeBytes;
    }

    int nextNode()
    {
        return nextNode;
    }

    String owner()
    {
        return owner;
    }

    TreeNode node(final int number)
    {
        TreeNode node = loaded.get(number);
        if (node == null)
        {
            final byte[] encoded = store.read(number);
            if (encoded == null)
            {
                if (changes != Long.MAX_VALUE)
                {
                    throw new TransactionConflictException("node " + number + " of the " + owner + " is gone since " +
                        "its header was read: run again");
                }
                throw new KvException("node " + number + " of the " + owner + " is missing");
            }
            node = TreeNode.decode(encoded, "node " + number + " of the " + owner);
            if (changes != Long.MAX_VALUE && node.stamp > changes)
            {
                throw new TransactionConflictException("node " + number + " of the " + owner + " was written at " +
                    "change " + node.stamp + ", after its header's " + changes + ": run again");
            }
            loaded.put(number, node);
        }
        return node;
    }

    /** @return true when the node was read or made by this space: only such a node can have changed in it. */
    boolean isLoaded(final int number)
    {
        return loaded.containsKey(number);
    }

    /**
     * Read the first {@code count} of {@code numbers} that this space has not, in one wave ({@link NodeStore#readAll}),
     * so that a walk along them reads none: a header's end paths. A number that names no node, or a node stamped
     * after the header, is left for the walk to meet (and rerun the transaction) should it go there: the numbers
     * may be stale, and only the walk knows which nodes it needs.
     */
    void prefetch(final int[] numbers, final int count)
    {
        final int[] wanted = new int[count];
        int missing = 0;
        for (int i = 0; i < count; i++)
        {
            final int number = numbers[i];
            if (number > 0 && number < nextNode && !loaded.containsKey(number) && !dropped.contains(number))
            {
                wanted[missing++] = number;
            }
        }
        if (missing == 0)
        {
            return;
        }
        final byte[][] read = missing == 1 ? new byte[][] {store.read(wanted[0])} : store.readAll(wanted, missing);
        for (int i = 0; i < missing; i++)
        {
            if (read[i] != null)
            {
                final TreeNode node = TreeNode.decode(read[i], "node " + wanted[i] + " of the " + owner);
                if (changes == Long.MAX_VALUE || node.stamp <= changes)
                {
                    loaded.put(wanted[i], node);
                }
            }
        }
    }

    int allocate(final TreeNode node)
    {
        if (nextNode == Integer.MAX_VALUE)
        {
            throw new KvException("the " + owner + " has used every node number of its generation (" +
                Integer.MAX_VALUE + "); a copy of it (COPY, RENAME after a copy) starts a new generation");
        }
        final int number = nextNode++;
        loaded.put(number, node);
        dirty.add(number);
        return number;
    }

    void changed(final int number)
    {
        dirty.add(number);
    }

    /** Remove a node, which need not have been read. */
    void drop(final int number)
    {
        loaded.remove(number);
        dirty.remove(number);
        dropped.add(number);
    }

    /** Read the node and mark it to be written again (an expiry change, a copy). */
    void rewrite(final int number)
    {
        node(number);
        dirty.add(number);
    }

    /** @return true when a node was changed, made or dropped since the last flush. */
    boolean changed()
    {
        return !dirty.isEmpty() || !dropped.isEmpty();
    }

    /** Hand every changed node to the store, and every dropped one's removal. */
    void flush()
    {
        for (final IntHashSet.IntIterator it = dirty.iterator(); it.hasNext(); )
        {
            final int number = it.nextValue();
            final TreeNode node = loaded.get(number);
            node.stamp = nextChanges();
            store.write(number, node.encode());
        }
        for (final IntHashSet.IntIterator it = dropped.iterator(); it.hasNext(); )
        {
            store.remove(it.nextValue());
        }
        dirty.clear();
        dropped.clear();
    }

    /** @return the nodes dropped since the last flush, which the flush will not remove now: the caller does. */
    int[] takeDropped()
    {
        final int[] numbers = new int[dropped.size()];
        int i = 0;
        for (final IntHashSet.IntIterator it = dropped.iterator(); it.hasNext(); )
        {
            numbers[i++] = it.nextValue();
        }
        dropped.clear();
        return numbers;
    }

    /** @return nodes dropped since the last flush. */
    int droppedCount()
    {
        return dropped.size();
    }

    NodeStore store()
    {
        return store;
    }
}

package io.dkv.client.ordered;

/**
 * Where a tree's nodes are kept, by number: a transaction's reserved keys ({@link TransactionNodes}), or a map in
 * tests and the model check.
 */
public interface NodeStore
{
    /** @return the node's encoded bytes, or null when there is no such node. */
    byte[] read(int node);

    /**
     * Read several nodes at once: a transaction's reads all in flight together, one round trip for all.
     *
     * @return each node's encoded bytes in the order asked, null where there is no such node.
     */
    default byte[][] readAll(final int[] nodes, final int count)
    {
        final byte[][] read = new byte[count][];
        for (int i = 0; i < count; i++)
        {
            read[i] = read(nodes[i]);
        }
        return read;
    }

    /** Set the node's bytes (when the transaction commits). */
    void write(int node, byte[] encoded);

    /** Remove the node (when the transaction commits). */
    void remove(int node);
}

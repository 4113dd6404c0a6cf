package io.dkv.client.ordered;

/**
 * Where a tree's nodes are kept, by number: a transaction's reserved keys ({@link TransactionNodes}), or a map in
 * tests and the model check.
 */
public interface NodeStore
{
    /** @return the node's encoded bytes, or null when there is no such node. */
    byte[] read(int node);

    /** Set the node's bytes (when the transaction commits). */
    void write(int node, byte[] encoded);

    /** Remove the node (when the transaction commits). */
    void remove(int node);
}

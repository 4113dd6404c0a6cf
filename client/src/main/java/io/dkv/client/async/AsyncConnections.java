package io.dkv.client.async;

import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Raas;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The connections one thread's operations carried by completions ({@link AsyncGets}, {@link AsyncWrites}) go
 * through, one per memory node, all answering to one handler. The owning thread opens them; a completion that
 * failed on one marks it, and the owner opens another before the next use.
 */
public final class AsyncConnections implements AutoCloseable
{
    private final Raas raas;
    private final CompletionHandler handler;
    private final Connection[] connections = new Connection[MemoryNodeAvailability.CAPACITY];
    /**
     * The connection a request failed on, per node: the owner opens another before the next use if it is still the
     * one in use (requests in flight on a connection closed so fail too, and must not close its successor).
     */
    private final AtomicReferenceArray<Connection> failed =
        new AtomicReferenceArray<>(MemoryNodeAvailability.CAPACITY);
    /** The view of each node a completion found older than a split: the owner reads the node's directory again. */
    private final AtomicReferenceArray<MemoryNodeView> moved =
        new AtomicReferenceArray<>(MemoryNodeAvailability.CAPACITY);

    AsyncConnections(final Raas raas, final CompletionHandler handler)
    {
        this.raas = raas;
        this.handler = handler;
    }

    /** Owner: @return the connection requests to node {@code node} go through. */
    public Connection connection(final int node, final long nodeId)
    {
        final Connection current = connections[node];
        if (current != null && failed.get(node) != current)
        {
            return current;
        }
        failed.set(node, null);
        if (current != null)
        {
            connections[node] = null;
            current.close();
        }
        final Connection opened = raas.open(nodeId, handler);
        connections[node] = opened;
        return opened;
    }

    /** Any thread: a request failed on {@code connection} to the node. */
    void failed(final int node, final Connection connection)
    {
        failed.set(node, connection);
    }

    /** Any thread: a read through {@code view} found the key's buckets moved by a split since it was read. */
    void moved(final int node, final MemoryNodeView view)
    {
        moved.set(node, view);
    }

    /** Owner: @return true when {@code view} of the node was found older than a split (it is read again). */
    public boolean isMoved(final int node, final MemoryNodeView view)
    {
        return moved.get(node) == view;
    }

    /** Owner (the client closing): requests in flight on the connections fail. */
    public void close()
    {
        for (int i = 0; i < connections.length; i++)
        {
            if (connections[i] != null)
            {
                connections[i].close();
                connections[i] = null;
            }
        }
    }
}

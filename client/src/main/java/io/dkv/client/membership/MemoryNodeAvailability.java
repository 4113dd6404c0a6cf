package io.dkv.client.membership;

import io.dkv.client.Durability;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.node.MemoryNodeView;
import io.dkv.raas.Raas;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which of a client's memory nodes could not be read, why, and when to try again, shared by the
 * client's threads: a node that is down fails the operations on its keys at once, naming it, and
 * only the keys it holds, while its view is read again at most once per retry interval (by whichever
 * thread comes first), so that a dead node costs neither a timeout per operation nor the other nodes'
 * keys. A node whose view is read is checked against what the client needs of it (grace period,
 * persistence) before any operation uses it.
 */
public final class MemoryNodeAvailability
{
    /** Memory nodes a client can know of: as many as the membership can list. */
    public static final int CAPACITY = 64;

    /** The nodes by index, the first {@link #count} filled; an index, once given, names its node for good. */
    private final long[] nodeIds = new long[CAPACITY];
    private volatile int count;
    private final KvClientContext context;
    private final NanoClock nanoClock;
    private final long retryIntervalNanos;
    /** Per node: why its view could not be read last, or null while it is available. */
    private final AtomicReferenceArray<KvException> causes;
    /** Per node: the nano time from which its view may be read again. */
    private final AtomicLongArray retryAt;
    /** Bit per node index: its view, when last read, said it keeps nothing on disk. */
    private final AtomicLong withoutDisk = new AtomicLong();

    public MemoryNodeAvailability(final long[] nodeIds, final KvClientContext context)
    {
        if (nodeIds.length > CAPACITY)
        {
            throw new KvException("a client reaches at most " + CAPACITY + " memory nodes, not " + nodeIds.length);
        }
        System.arraycopy(nodeIds, 0, this.nodeIds, 0, nodeIds.length);
        this.count = nodeIds.length;
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.retryIntervalNanos = context.unavailableRetryMs() * 1_000_000L;
        this.causes = new AtomicReferenceArray<>(CAPACITY);
        this.retryAt = new AtomicLongArray(CAPACITY);
    }

    /** @return the nodes known so far, by index. */
    public long[] nodeIds()
    {
        return java.util.Arrays.copyOf(nodeIds, count);
    }

    public int count()
    {
        return count;
    }

    /** @return the node's index, or -1 when the client does not know it. */
    int indexOf(final long nodeId)
    {
        final int known = count;
        for (int i = 0; i < known; i++)
        {
            if (nodeIds[i] == nodeId)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * A member the client did not know of (added to the memory tier since it connected): give it the next index.
     * Its view is read by each thread at its first use.
     *
     * @return its index.
     */
    synchronized int add(final long nodeId)
    {
        final int known = indexOf(nodeId);
        if (known >= 0)
        {
            return known;
        }
        if (count == CAPACITY)
        {
            throw new KvException("memory node " + nodeId + " joined, but this client already knows " + CAPACITY +
                " memory nodes, as many as it can reach");
        }
        nodeIds[count] = nodeId;
        // published by the volatile write: a reader that sees the count sees the id
        count = count + 1;
        return count - 1;
    }

    public long nodeId(final int node)
    {
        return nodeIds[node];
    }

    /**
     * Read the node's view as the client connects.
     *
     * @return the view, or null when it could not be read: the node is unavailable, with the cause kept.
     * @throws KvException when the node was read but this client cannot use it (its grace period, its disk).
     */
    public MemoryNodeView readAtConnect(final Raas raas, final int node)
    {
        final MemoryNodeView view;
        try
        {
            view = MemoryNodeView.read(raas, nodeIds[node]);
        }
        catch (final KvException ex)
        {
            failed(node, ex);
            return null;
        }
        return usable(view, node);
    }

    /**
     * Read the node's view again (a request to it failed, or it was unavailable): at once when it was
     * available, else only once the retry interval has passed since the last try.
     *
     * @throws KvException naming the node when it is unavailable, or cannot be used by this client.
     */
    public MemoryNodeView readAgain(final Raas raas, final int node)
    {
        final KvException cause = causes.get(node);
        if (cause != null)
        {
            final long now = nanoClock.nanoTime();
            final long at = retryAt.get(node);
            if (now - at < 0 || !retryAt.compareAndSet(node, at, now + retryIntervalNanos))
            {
                // tried lately, or another thread tries now: fail without waiting on the node
                throw unavailable(node, cause);
            }
        }
        final MemoryNodeView view;
        try
        {
            view = MemoryNodeView.read(raas, nodeIds[node]);
        }
        catch (final KvException ex)
        {
            failed(node, ex);
            throw unavailable(node, ex);
        }
        return usable(view, node);
    }

    /**
     * @return the nodes whose view, when last read, said they keep nothing on disk (started without a data
     * directory): writes there cannot be made durable. Nodes not read yet are not among them.
     */
    public long[] withoutDisk()
    {
        final long bits = withoutDisk.get();
        final long[] ids = new long[Long.bitCount(bits)];
        int next = 0;
        for (int node = 0; node < CAPACITY; node++)
        {
            if ((bits & (1L << node)) != 0)
            {
                ids[next++] = nodeIds[node];
            }
        }
        return ids;
    }

    private MemoryNodeView usable(final MemoryNodeView view, final int node)
    {
        final long bit = 1L << node;
        withoutDisk.getAndUpdate(bits -> view.persistent ? bits & ~bit : bits | bit);
        try
        {
            requireUsable(view);
        }
        catch (final KvException ex)
        {
            failed(node, ex);
            throw ex;
        }
        causes.set(node, null);
        return view;
    }

    private void failed(final int node, final KvException cause)
    {
        retryAt.set(node, nanoClock.nanoTime() + retryIntervalNanos);
        causes.set(node, cause);
    }

    private void requireUsable(final MemoryNodeView view)
    {
        if (context.timeoutMs() >= view.graceMs)
        {
            throw new KvException("this client's operation timeout of " + context.timeoutMs() +
                " ms is not shorter than memory node " + view.nodeId + "'s grace period of " + view.graceMs +
                " ms, after which it reuses replaced blocks");
        }
        if (context.durability() != Durability.NONE && !view.persistent)
        {
            throw new KvException("memory node " + view.nodeId +
                " keeps nothing on disk (start it with a data directory), so durability " +
                context.durability().name().toLowerCase() + " cannot be had");
        }
    }

    private KvException unavailable(final int node, final KvException cause)
    {
        final String name = "memory node " + nodeIds[node];
        final String why = cause.getMessage();
        // the cause names the node too: said once, "memory node 101 is unavailable: it publishes no index ..."
        return new KvException(name + " is unavailable: " +
            (why != null && why.startsWith(name + " ") ? "it " + why.substring(name.length() + 1) : why), cause);
    }
}

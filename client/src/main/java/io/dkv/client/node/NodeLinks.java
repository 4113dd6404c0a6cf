package io.dkv.client.node;

import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.client.Versioned;
import io.dkv.client.membership.MembershipView;
import io.dkv.client.membership.MemoryNodeAvailability;
import io.dkv.format.KvBlockLayout;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One thread's links to the memory nodes: each node's view (regions, directory), its logical connection for
 * one-sided requests and its message connection to the node's CPU, and the rounds of requests posted together and
 * awaited together.
 *
 * <p>Nodes are named by their index in {@link MemoryNodeAvailability}. A request that fails marks its node stale;
 * its next {@link #use} reads its view again over new connections, and {@link #linkGeneration} moves on so that what
 * was made over the old ones (heap chunks: {@link HeapChunks}) is dropped. A round's completions are counted against
 * the token that started it, so a late completion of a round given up counts for nothing.
 */
public final class NodeLinks implements CompletionHandler, AutoCloseable
{
    /** Requests of one round whose outcome is kept ({@link #tracked}): the low bits of a round's tokens number them. */
    public static final int TRACKED = 255;
    private static final int TRACKED_BITS = 8;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final Raas raas;
    private final KvClientContext context;
    private final NanoClock nanoClock;
    private final MemoryNodeAvailability availability;
    private final MembershipView membership;

    /** Nodes this thread knows the ids of: members added later take the next indices. */
    private int known;
    private final MemoryNodeView[] views;
    private final long[] nodeIds;
    private final Connection[] connections;
    /** Message connections to the nodes' CPUs (chunks, persistence, splits). */
    private final Connection[] requestConnections;
    /** The node's view and connections are made again at its next use. */
    private final boolean[] stale;
    private final int[] linkGeneration;
    private final MemorySegment rpc;
    private long requestCorrelation;

    private final AtomicInteger completions = new AtomicInteger();
    private volatile long generation;
    private volatile int failure;
    /** Per tracked request of the round ({@link #tracked}): what it completed with (a CAS: the word before). */
    private final long[] trackedValues = new long[TRACKED];

    /**
     * @param views the nodes' views as the client read them when it connected; null for a node that could not be read.
     */
    public NodeLinks(final Raas raas, final KvClientContext context, final MemoryNodeAvailability availability,
        final MembershipView membership, final MemoryNodeView[] views)
    {
        this.raas = raas;
        this.context = context;
        this.nanoClock = context.nanoClock();
        this.availability = availability;
        this.membership = membership;
        // sized for every node the client may come to know
        this.views = Arrays.copyOf(views, MemoryNodeAvailability.CAPACITY);
        this.nodeIds = new long[MemoryNodeAvailability.CAPACITY];
        this.connections = new Connection[MemoryNodeAvailability.CAPACITY];
        this.requestConnections = new Connection[MemoryNodeAvailability.CAPACITY];
        this.stale = new boolean[MemoryNodeAvailability.CAPACITY];
        this.linkGeneration = new int[MemoryNodeAvailability.CAPACITY];
        Arrays.fill(stale, true);
        this.known = availability.count();
        for (int i = 0; i < known; i++)
        {
            nodeIds[i] = availability.nodeId(i);
            stale[i] = this.views[i] == null;
        }
        if (membership.replicas() >= 2)
        {
            // each node's view is read again by this thread before its first use, and its incarnation checked
            Arrays.fill(stale, true);
        }
        this.rpc = raas.allocateBuffer(MemoryNodeProtocol.REPLY_LENGTH + MemoryNodeProtocol.REQUEST_LENGTH);
    }

    public void onCompletion(final long token, final int status, final long value)
    {
        if (token >>> TRACKED_BITS != generation)
        {
            // a request of a round that timed out: nobody waits for it
            return;
        }
        final int tracked = (int)(token & TRACKED);
        if (tracked != 0)
        {
            // before the count: whoever sees the round complete sees the value
            trackedValues[tracked - 1] = value;
        }
        if (status != RaasStatus.SUCCESS && failure == RaasStatus.SUCCESS)
        {
            failure = status;
        }
        completions.incrementAndGet();
    }

    public Raas raas()
    {
        return raas;
    }

    /** @return how many nodes this thread knows the ids of, as many as when it last looked. */
    public int known()
    {
        return known;
    }

    public long nodeId(final int node)
    {
        return nodeIds[node];
    }

    /** @return the ids of the nodes by index, kept current by {@link #use}: read, never written, by others. */
    public long[] nodeIds()
    {
        return nodeIds;
    }

    public MemoryNodeView view(final int node)
    {
        return views[node];
    }

    /** @return true when a node read so far keeps key versions ({@link MemoryNodeView#keepsVersions}). */
    public boolean anyKeepsVersions()
    {
        for (final MemoryNodeView view : views)
        {
            if (view != null && view.keepsVersions)
            {
                return true;
            }
        }
        return false;
    }

    /** @return how many times the node's links were made again: what was made over older ones is gone. */
    int linkGeneration(final int node)
    {
        return linkGeneration[node];
    }

    /**
     * @return whether a slot of the node holding the version's word still names the version's write: the node and its
     * incarnation are those it was read from, and too little time has passed for the block to have been reused.
     */
    public boolean knowsWord(final Versioned version, final int node)
    {
        final long lifetimeNanos = (views[node].graceMs - (long)context.timeoutMs()) * 1_000_000L;
        return version.comparableAsWord(nodeIds[node], views[node].index.nodeEpoch(), nanoClock.nanoTime(),
            lifetimeNanos);
    }

    /** Make the node's view and connections again at its next use. */
    void markStale(final int node)
    {
        stale[node] = true;
    }

    /** @return the node, its view and connections made again first when its last request failed. */
    public int use(final int node)
    {
        if (node >= known)
        {
            // a member added since this thread last looked: its view is read at this first use
            final int count = availability.count();
            for (int i = known; i < count; i++)
            {
                nodeIds[i] = availability.nodeId(i);
            }
            known = count;
        }
        if (stale[node])
        {
            refresh(node);
        }
        return node;
    }

    /**
     * A request to the node failed, or its view could not be read: it may have restarted with new regions, so read
     * its view again and start over with new connections. While it stays unreachable this fails at once, naming it,
     * and a later operation tries again ({@link MemoryNodeAvailability}).
     */
    private void refresh(final int node)
    {
        close(connections, node);
        close(requestConnections, node);
        // the node takes back every chunk once the connection is gone: no word may name their blocks any more
        linkGeneration[node]++;
        views[node] = availability.readAgain(raas, node);
        stale[node] = false;
        final long incarnation = views[node].index.nodeEpoch();
        if (membership.replicas() >= 2 && !membership.lists(node, incarnation))
        {
            // restarted since the membership was read: until it lists this incarnation, nothing of it is used
            stale[node] = true;
            throw new KvException("memory node " + nodeIds[node] + " answers as incarnation " + incarnation +
                ", which the membership does not list (" + membership.describe(node) + "): it restarted and is " +
                "not a replica as that incarnation yet");
        }
    }

    /** The node's directory changed (a split): read its view again; when that fails, the node's next use does. */
    public void readDirectoryAgain(final int node)
    {
        try
        {
            views[node] = MemoryNodeView.read(raas, nodeIds[node]);
        }
        catch (final KvException ex)
        {
            stale[node] = true;
            throw ex;
        }
    }

    /** @return the node's connection for one-sided requests, opened at its first use. */
    public Connection connection(final int node)
    {
        Connection connection = connections[node];
        if (connection == null)
        {
            try
            {
                connection = raas.open(nodeIds[node], this);
            }
            catch (final RaasException ex)
            {
                throw unreachable(node, ex);
            }
            connections[node] = connection;
        }
        return connection;
    }

    /** @return the failure as the operation reports it; the node's links are made again at its next use. */
    public KvException unreachable(final int node, final RaasException cause)
    {
        stale[node] = true;
        return new KvException("memory node " + nodeIds[node] + ": " + cause.getMessage(), cause);
    }

    // ---------------------------------------------------------------------------------------------
    // rounds of one-sided requests

    /** @return the token of a new round of asynchronous requests, whose completions are counted from zero. */
    public long startRequests()
    {
        final long next = generation + 1;
        // the generation first: a late completion of an abandoned read must not count for this one
        generation = next;
        completions.set(0);
        failure = RaasStatus.SUCCESS;
        return next << TRACKED_BITS;
    }

    /**
     * @param token a round's token ({@link #startRequests}).
     * @param index which of the round's tracked requests, from 0 to {@link #TRACKED} - 1.
     * @return the token of a request whose outcome the round keeps: {@link #trackedValue}.
     */
    public static long tracked(final long token, final int index)
    {
        if (index < 0 || index >= TRACKED)
        {
            throw new IllegalArgumentException("tracked request " + index + " of a round: at most " + TRACKED);
        }
        return token + 1 + index;
    }

    /** @return what the round's tracked request {@code index} completed with (a CAS: the word it found). */
    public long trackedValue(final int index)
    {
        return trackedValues[index];
    }

    /** Wait for a round's {@code expected} requests to one node: a failure makes it read again. */
    public void await(final int node, final int expected)
    {
        if (!completed(expected))
        {
            stale[node] = true;
            throw new KvException("memory node " + nodeIds[node] + " did not answer within " + context.timeoutMs() +
                " ms");
        }
        if (failure != RaasStatus.SUCCESS)
        {
            stale[node] = true;
            throw new KvException("reading the index of memory node " + nodeIds[node] + " failed: " +
                RaasStatus.describe(failure));
        }
    }

    /** As {@link #await}, for a round of requests to several nodes: a failure makes each of them read again. */
    public void awaitRound(final int[] roundNodes, final int count, final int expected)
    {
        if (!completed(expected))
        {
            throw roundFailed(roundNodes, count, "did not all answer within " + context.timeoutMs() + " ms");
        }
        if (failure != RaasStatus.SUCCESS)
        {
            throw roundFailed(roundNodes, count, "failed a request: " + RaasStatus.describe(failure));
        }
    }

    private KvException roundFailed(final int[] roundNodes, final int count, final String what)
    {
        final StringBuilder ids = new StringBuilder();
        for (int p = 0; p < count; p++)
        {
            stale[roundNodes[p]] = true;
            ids.append(p == 0 ? "" : ", ").append(nodeIds[roundNodes[p]]);
        }
        return new KvException("memory nodes " + ids + " " + what);
    }

    /**
     * Poll until the round's requests have completed, or the timeout passed (the round is then given up: its late
     * completions count for nothing).
     *
     * @return false when the timeout passed.
     */
    private boolean completed(final int expected)
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        int idle = 0;
        while (completions.get() < expected)
        {
            if (raas.poll() == 0)
            {
                if (++idle < 64)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    raas.idle(idle);
                    if (nanoClock.nanoTime() > deadline)
                    {
                        generation++;
                        return false;
                    }
                }
            }
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------
    // requests to the nodes' CPUs

    /** @return the buffer the last answered {@link #request} left its answer in. */
    MemorySegment reply()
    {
        return rpc;
    }

    /**
     * One request to the node's CPU over this thread's message connection to it.
     *
     * @param answered true: wait for the answer (into {@link #reply}); false: return OK once sent.
     * @return the answer's status.
     */
    public int request(
        final int node, final int type, final int argument, final long block, final boolean answered, final String what)
    {
        return request(node, type, argument, block, KvBlockLayout.NO_WRITE, answered, what);
    }

    /** @return the node's message connection for requests to its CPU, made at its first. */
    private Connection requestConnection(final int node)
    {
        Connection connection = requestConnections[node];
        if (connection == null)
        {
            connection = raas.connect(nodeIds[node], MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
            requestConnections[node] = connection;
        }
        return connection;
    }

    /**
     * @param writeId PERSIST: the write the block must hold, or {@link KvBlockLayout#NO_WRITE}: any.
     */
    public int request(final int node, final int type, final int argument, final long block, final long writeId,
        final boolean answered, final String what)
    {
        final long nodeId = nodeIds[node];
        try
        {
            final Connection connection = requestConnection(node);
            final long correlation = ++requestCorrelation;
            rpc.set(INT, MemoryNodeProtocol.TYPE_OFFSET, type);
            rpc.set(INT, MemoryNodeProtocol.ARGUMENT_OFFSET, argument);
            rpc.set(LONG, MemoryNodeProtocol.CORRELATION_OFFSET, correlation);
            rpc.set(LONG, MemoryNodeProtocol.BLOCK_OFFSET, block);
            rpc.set(LONG, MemoryNodeProtocol.WRITE_ID_OFFSET, writeId);
            connection.send(rpc, 0, MemoryNodeProtocol.REQUEST_LENGTH, Flags.ADAPTIVE);
            if (!answered)
            {
                return MemoryNodeProtocol.OK;
            }
            return awaitAnswer(node, connection, correlation, what);
        }
        catch (final RaasException ex)
        {
            stale[node] = true;
            throw new KvException("memory node " + nodeId + " did not answer a request for " + what + ": " +
                ex.getMessage(), ex);
        }
    }

    /**
     * Send a request of its own bytes (PERSIST_BLOCKS) over the node's request connection, with a correlation of this
     * thread's, and wait for its answer.
     *
     * @return the answer's status.
     */
    public int requestMessage(final int node, final MemorySegment message, final int length, final String what)
    {
        final long nodeId = nodeIds[node];
        try
        {
            final Connection connection = requestConnection(node);
            final long correlation = ++requestCorrelation;
            message.set(LONG, MemoryNodeProtocol.CORRELATION_OFFSET, correlation);
            connection.send(message, 0, length, Flags.ADAPTIVE);
            return awaitAnswer(node, connection, correlation, what);
        }
        catch (final RaasException ex)
        {
            stale[node] = true;
            throw new KvException("memory node " + nodeId + " did not answer a request for " + what + ": " +
                ex.getMessage(), ex);
        }
    }

    /** @throws RaasException when the connection failed or the answer did not come within the client's timeout. */
    private int awaitAnswer(final int node, final Connection connection, final long correlation, final String what)
    {
        final long deadline = nanoClock.nanoTime() + context.timeoutMs() * 1_000_000L;
        while (true)
        {
            final long left = Math.max(1, (deadline - nanoClock.nanoTime()) / 1_000_000L);
            final int length = connection.recv(rpc, 0, (int)rpc.byteSize(), Duration.ofMillis(left));
            if (length < MemoryNodeProtocol.REPLY_LENGTH)
            {
                throw new KvException("memory node " + nodeIds[node] + " answered a request for " + what + " with " +
                    length + " bytes");
            }
            // an answer to a request this thread gave up on (it timed out) is skipped
            if (rpc.get(LONG, MemoryNodeProtocol.REPLY_CORRELATION_OFFSET) == correlation)
            {
                return rpc.get(INT, MemoryNodeProtocol.STATUS_OFFSET);
            }
        }
    }

    public void close()
    {
        for (int i = 0; i < connections.length; i++)
        {
            closeQuietly(connections[i]);
            closeQuietly(requestConnections[i]);
        }
    }

    private static void close(final Connection[] connections, final int node)
    {
        final Connection connection = connections[node];
        connections[node] = null;
        if (connection != null)
        {
            try
            {
                connection.close();
            }
            catch (final RaasException ignore)
            {
                // its node is gone already
            }
        }
    }

    /**
     * Close a connection whatever its driver answers: a standalone driver that does not answer (gone, or starved past
     * its liveness timeout) frees what a gone client held, and every other connection must still be closed.
     */
    private static void closeQuietly(final Connection connection)
    {
        if (connection == null)
        {
            return;
        }
        try
        {
            connection.close();
        }
        catch (final RaasException ex)
        {
            // nothing to do for a connection the driver no longer answers for
        }
    }
}

package io.dkv.client.replication;

import io.dkv.client.KvClientContext;
import io.dkv.client.KvErrors;
import io.dkv.client.KvException;
import io.dkv.client.async.CompletionPolling;
import io.dkv.format.MemoryNodeProtocol;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The durability step of writes carried by completions: telling each replica's node which block changed (PERSIST)
 * and waiting for every node's answer, that it is on disk (durability sync) or that it took the notice into the batch
 * it writes next (async: an answer before any mark the client writes after it, so a write's epoch is held back from
 * the marks until then), without a thread waiting on any one answer. Completing threads hand a write's requests in
 * ({@link #offer}); one thread ({@link CompletionPolling}'s agent) sends them over message connections of its own and
 * reads the answers as they are there, completing each write's future once its last answer came.
 *
 * <p>At most {@link #OUTSTANDING} requests wait for answers per node: a node answers into this client's receive
 * buffers, which must be drained while it sends, and this thread both sends and drains.
 */
public final class PersistRequests
{
    /** Requests in flight per node, below the receive buffers a message connection has. */
    static final int OUTSTANDING = 16;
    private static final int QUEUED = 1024;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** One write's durability: the block that changed on each replica's node, and what its future completes with. */
    public static final class Job
    {
        final byte[] key;
        final long[] nodeIds;
        /** The block on each node: the new one, or the one a delete emptied. */
        final long[] offsets;
        /** The write id of the version the write replaced on each node (NO_WRITE: none), which its notice names. */
        final long[] replaced;
        final Object answer;
        final CompletableFuture<Object> future;
        /** Durability sync: each node answers once the key is on disk; else told, not waited for. */
        final boolean answered;
        /** Nodes yet to answer; the agent's alone. */
        int remaining;
        /** Under sync with several replicas: the head's request (replica 0) is sent, after every other answered. */
        boolean headSent;

        /** @param answered true for a write under durability sync, whatever the client's is by now. */
        public Job(final byte[] key, final long[] nodeIds, final long[] offsets, final long[] replaced,
            final Object answer, final CompletableFuture<Object> future, final boolean answered)
        {
            this.key = key;
            this.nodeIds = nodeIds;
            this.offsets = offsets;
            this.replaced = replaced;
            this.answer = answer;
            this.future = future;
            this.answered = answered;
        }
    }

    /** A request of a job to one node: held until it may go, then awaiting its answer. */
    private static final class Request
    {
        final Job job;
        final int replica;
        long correlation;
        long deadlineNanos;

        Request(final Job job, final int replica)
        {
            this.job = job;
            this.replica = replica;
        }
    }

    /** This thread's side of one node: its connection, the requests it answers in order, and those held back. */
    private static final class Node
    {
        final long nodeId;
        Connection connection;
        final ArrayDeque<Request> pending = new ArrayDeque<>();
        final ArrayDeque<Request> held = new ArrayDeque<>();

        Node(final long nodeId)
        {
            this.nodeId = nodeId;
        }
    }

    private final Raas raas;
    private final NanoClock nanoClock;
    private final long timeoutNanos;
    private final ManyToOneConcurrentArrayQueue<Job> queue = new ManyToOneConcurrentArrayQueue<>(QUEUED);
    private final Long2ObjectHashMap<Node> nodes = new Long2ObjectHashMap<>();
    private final MemorySegment request = MemorySegment.ofArray(new byte[MemoryNodeProtocol.REQUEST_LENGTH]);
    private final MemorySegment reply = MemorySegment.ofArray(new byte[MemoryNodeProtocol.REPLY_LENGTH + 64]);
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong undelivered = new AtomicLong();
    /** Requests to nodes handed in, one per node of a write, and those not yet sent or (sync) answered. */
    private final AtomicLong told = new AtomicLong();
    private final AtomicLong outstanding = new AtomicLong();
    private long correlation;

    /** Each job says whether its nodes answer once on disk (sync) or are only told: durability may change. */
    public PersistRequests(final Raas raas, final KvClientContext context)
    {
        this.raas = raas;
        this.nanoClock = context.nanoClock();
        this.timeoutNanos = context.timeoutMs() * 1_000_000L;
    }

    /** Any thread: @return false when too many are queued (the caller tells the nodes another way). */
    public boolean offer(final Job job)
    {
        // counted first: the agent may take it and count it done before offer returns
        told.addAndGet(job.nodeIds.length);
        outstanding.addAndGet(job.nodeIds.length);
        if (!queue.offer(job))
        {
            told.addAndGet(-job.nodeIds.length);
            outstanding.addAndGet(-job.nodeIds.length);
            return false;
        }
        return true;
    }

    /** @return writes whose durability this finished, their futures completed. */
    public long completed()
    {
        return completed.get();
    }

    /** @return requests to nodes handed in ({@link #offer}): one per node a write is on. */
    public long told()
    {
        return told.get();
    }

    /**
     * @return requests of writes under durability async that could not be sent (the node was gone): the writes were
     * answered, on their replicas in memory, within the window async accepts.
     */
    public long undelivered()
    {
        return undelivered.get();
    }

    /** @return writes whose nodes did not all confirm (a failure, a timeout), their futures failed. */
    public long failed()
    {
        return failed.get();
    }

    /** @return of {@link #told()}, the requests not sent yet or, under durability sync, not answered yet. */
    public long pending()
    {
        return Math.max(0, outstanding.get());
    }

    /** The agent's turn: send what was handed in, read the answers there are, fail what ran out of time. */
    public int doWork()
    {
        int work = queue.drain(this::start, QUEUED);
        for (final Node node : nodes.values())
        {
            work += readAnswers(node);
            work += sendHeld(node);
            expire(node);
        }
        return work;
    }

    /**
     * Under sync with several replicas the head (replica 0, where reads go) is told last, once every other replica
     * answered that the key is on its disk: its node settles the block as it writes it, and a value readers see
     * settled must be on every replica's disk (ReplicaChain's persist says why).
     */
    private void start(final Job job)
    {
        job.remaining = job.nodeIds.length;
        final boolean headLast = job.answered && job.nodeIds.length > 1;
        for (int p = 0; p < job.nodeIds.length; p++)
        {
            // every node made now: answers arrive while the agent walks the nodes, and the head is told from there
            nodes.computeIfAbsent(job.nodeIds[p], Node::new);
        }
        job.headSent = !headLast;
        for (int p = headLast ? 1 : 0; p < job.nodeIds.length; p++)
        {
            tell(job, p);
        }
    }

    /** Held for the node's next send, in this turn: what a turn gathers for a node goes in as few messages as may. */
    private void tell(final Job job, final int replica)
    {
        nodes.get(job.nodeIds[replica]).held.add(new Request(job, replica));
    }

    private int sendHeld(final Node node)
    {
        int sent = 0;
        while (!node.held.isEmpty() && node.pending.size() < OUTSTANDING)
        {
            final Request held = node.held.poll();
            if (held.job.future.isDone())
            {
                // another node of it failed
                outstanding.decrementAndGet();
                continue;
            }
            held.correlation = ++correlation;
            request.set(INT, MemoryNodeProtocol.TYPE_OFFSET, MemoryNodeProtocol.PERSIST);
            final boolean answered = held.job.answered;
            request.set(INT, MemoryNodeProtocol.ARGUMENT_OFFSET, MemoryNodeProtocol.NAMES_PREVIOUS |
                (answered ? MemoryNodeProtocol.ANSWER_WHEN_DURABLE : MemoryNodeProtocol.ANSWER_WHEN_TAKEN));
            request.set(LONG, MemoryNodeProtocol.CORRELATION_OFFSET, held.correlation);
            request.set(LONG, MemoryNodeProtocol.BLOCK_OFFSET, held.job.offsets[held.replica]);
            request.set(LONG, MemoryNodeProtocol.WRITE_ID_OFFSET, held.job.replaced[held.replica]);
            try
            {
                connection(node).send(request, 0, MemoryNodeProtocol.REQUEST_LENGTH, Flags.ADAPTIVE);
            }
            catch (final RaasException ex)
            {
                outstanding.decrementAndGet();
                if (!answered)
                {
                    // durability async (appendfsync everysec): the write is on its replicas, and the node that cannot
                    // be told is gone with its copy; what a crash takes within the window async accepted, as redis's
                    // everysec answers OK and loses the last second to a crash. Counted, not failed.
                    undelivered.incrementAndGet();
                    answeredBy(held.job);
                    broken(node, null, "did not take a request for the key on disk: " + ex.getMessage(), ex);
                    continue;
                }
                broken(node, held.job, "did not take a request for the key on disk: " + ex.getMessage(), ex);
                continue;
            }
            sent++;
            held.deadlineNanos = nanoClock.nanoTime() + timeoutNanos;
            node.pending.add(held);
        }
        return sent;
    }

    private int readAnswers(final Node node)
    {
        int read = 0;
        while (!node.pending.isEmpty() && node.connection != null && node.connection.isReadable())
        {
            final int length;
            try
            {
                length = node.connection.recv(reply, 0, (int)reply.byteSize(), Duration.ZERO);
            }
            catch (final RaasException ex)
            {
                broken(node, node.pending.peek().job,
                    "did not answer a request for the key on disk: " + ex.getMessage(), ex);
                return read;
            }
            read++;
            if (length < MemoryNodeProtocol.REPLY_LENGTH)
            {
                continue;
            }
            final long id = reply.get(LONG, MemoryNodeProtocol.REPLY_CORRELATION_OFFSET);
            while (!node.pending.isEmpty() && node.pending.peek().correlation < id)
            {
                // an answer skipped (its request timed out): the node answers in order
                node.pending.poll();
                outstanding.decrementAndGet();
            }
            final Request answeredRequest = node.pending.peek();
            if (answeredRequest == null || answeredRequest.correlation != id)
            {
                continue;
            }
            node.pending.poll();
            outstanding.decrementAndGet();
            final int status = reply.get(INT, MemoryNodeProtocol.STATUS_OFFSET);
            if (!answeredRequest.job.answered && status != MemoryNodeProtocol.OK)
            {
                // durability async: the write is on its replicas and stands; a node that kept nothing of it is
                // counted, as one that could not be told
                if (status != MemoryNodeProtocol.NOT_PERSISTENT)
                {
                    undelivered.incrementAndGet();
                }
                answeredBy(answeredRequest.job);
                continue;
            }
            if (status != MemoryNodeProtocol.OK)
            {
                fail(answeredRequest.job, "memory node " + node.nodeId + " did not write the key to disk: " +
                    MemoryNodeProtocol.why(status), null);
                continue;
            }
            answeredBy(answeredRequest.job);
        }
        return read;
    }

    private void expire(final Node node)
    {
        final long now = nanoClock.nanoTime();
        while (!node.pending.isEmpty() && now - node.pending.peek().deadlineNanos > 0)
        {
            final Request late = node.pending.poll();
            outstanding.decrementAndGet();
            if (!late.job.answered)
            {
                // durability async: told, maybe taken; the write stands, counted as not delivered
                undelivered.incrementAndGet();
                answeredBy(late.job);
                continue;
            }
            fail(late.job, "memory node " + node.nodeId + " did not answer a request for the key on disk within " +
                timeoutNanos / 1_000_000 + " ms", null);
        }
    }

    private Connection connection(final Node node)
    {
        if (node.connection == null)
        {
            node.connection = raas.connect(node.nodeId, MemoryNodeProtocol.SERVICE, Flags.ADAPTIVE, null);
        }
        return node.connection;
    }

    /**
     * The node's connection failed: the write fails (unless null: it was answered), and so does every other waiting
     * on it; a new one is opened.
     */
    private void broken(final Node node, final Job job, final String why, final RaasException cause)
    {
        final String text = "memory node " + node.nodeId + " " + why;
        if (job != null && job.answered)
        {
            fail(job, text, cause);
        }
        while (!node.pending.isEmpty())
        {
            final Request request = node.pending.poll();
            outstanding.decrementAndGet();
            if (!request.job.answered)
            {
                // durability async: the write stands on its replicas; the node gone with its copy is counted
                undelivered.incrementAndGet();
                answeredBy(request.job);
                continue;
            }
            fail(request.job, text, cause);
        }
        if (node.connection != null)
        {
            node.connection.close();
            node.connection = null;
        }
    }

    private void answeredBy(final Job job)
    {
        if (--job.remaining == 0 && job.future.complete(job.answer))
        {
            completed.incrementAndGet();
        }
        else if (job.remaining == 1 && !job.headSent)
        {
            job.headSent = true;
            tell(job, 0);
        }
    }

    private void fail(final Job job, final String why, final RaasException cause)
    {
        // the write holds every replica: tried again as a new one, a compare-and-set would find its own value there
        final KvException wrapped = cause == null ? null : new KvException(cause.getMessage(), cause);
        if (job.future.completeExceptionally(new ReplicaChain.OutcomeUnknown("write of key " +
            KvErrors.describe(job.key) + " is on its replicas but was not confirmed on disk: " + why +
            "; it has taken effect, durable or not", wrapped)))
        {
            failed.incrementAndGet();
        }
    }
}

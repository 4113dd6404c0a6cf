package io.dkv.compute.blocking;

import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.mesh.MeshException;
import io.dkv.compute.pubsub.PubSub;
import io.netty.buffer.ByteBuf;
import org.agrona.ErrorHandler;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The connections of this node blocked on keys, and how a key readied anywhere in the pool wakes them.
 *
 * <p>The rules (kv-compute-node/README.md, "Blocking commands across compute nodes"):
 * <ul>
 * <li>A blocking command first runs as its non-blocking form; when it takes nothing, its connection is queued on each
 * of its keys, the key's first waiter on this node is told to every peer (answered before going on, as a SUBSCRIBE),
 * and the command runs again: a write between the two runs is seen by the second, one after it finds the waiter.</li>
 * <li>A command that may make a key a list or a sorted set (a push, ZADD, a move's destination, a STORE), through any
 * node, signals the key after it ran (after EXEC's commit for a transaction's): to this node's waiters, and by a call
 * to each peer told of waiters on it. A signal that finds nothing to take costs a run of the command and changes
 * nothing, so signals may be spurious but are never missed.</li>
 * <li>A key's waiters on this node are served one at a time, oldest first, each on its connection's loop: the oldest
 * runs its command; when it took something the next is tried, when it took nothing the rest wait on. A waiter whose
 * connection closed, timed out or was unblocked is passed over.</li>
 * </ul>
 * The element a waiter takes is taken by a transaction, as its non-blocking form takes it: it is taken once or not at
 * all, and a waiter whose connection is gone takes nothing.
 */
public final class Waiters
{
    /** A key readied on another node: its waiters here are to try. */
    public static final byte CALL_READY = 11;

    private final Map<ByteBuffer, Queue> byKey = new ConcurrentHashMap<>();
    private final Map<Long, Waiter> byConnection = new ConcurrentHashMap<>();
    private final PubSub pool;
    private final ComputeMesh mesh;
    private final ErrorHandler errors;

    /** One key's waiters, oldest first, and whether a round of serving them is under way. */
    private static final class Queue
    {
        final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();
        final AtomicBoolean serving = new AtomicBoolean();
        volatile boolean again;
    }

    /**
     * @param pool   tells the peers which keys this node's connections wait on, and which of theirs wait.
     * @param errors where failed calls to peers are counted.
     */
    public Waiters(final PubSub pool, final ErrorHandler errors)
    {
        this.pool = pool;
        this.mesh = pool.mesh();
        this.errors = errors;
        if (mesh != null)
        {
            mesh.handle(CALL_READY, (caller, request) ->
            {
                final byte[] key = new byte[request.remaining()];
                request.get(key);
                // not on the service's thread, which must not wait on the store nor call peers: on a waiter's loop
                readyElsewhere(key);
                return new byte[0];
            });
        }
    }

    /**
     * On the waiter's loop, after its command took nothing: queue it on its keys, tell the peers, and run its command
     * once more (rule 1), as a signal would.
     *
     * @return true when that run took something and answered it.
     */
    public boolean block(final Waiter waiter)
    {
        waiter.whenDone(() -> release(waiter));
        byConnection.put(waiter.connectionId(), waiter);
        for (final byte[] key : waiter.keys())
        {
            final Queue queue = byKey.computeIfAbsent(ByteBuffer.wrap(key), k -> new Queue());
            queue.waiters.addLast(waiter);
            pool.tellKey(key, () -> waiting(key));
        }
        if (waiter.serve() != Waiter.TOOK)
        {
            return false;
        }
        // a round of a write may have passed it over while it ran: what is left is for the others
        for (final byte[] key : waiter.keys())
        {
            readyHere(key);
        }
        return true;
    }

    /** Once it is done, on the thread that ended it: off its keys, and the peers told of keys nobody waits on here. */
    private void release(final Waiter waiter)
    {
        byConnection.remove(waiter.connectionId(), waiter);
        for (final byte[] key : waiter.keys())
        {
            final ByteBuffer name = ByteBuffer.wrap(key);
            final Queue queue = byKey.get(name);
            if (queue != null)
            {
                queue.waiters.remove(waiter);
                if (queue.waiters.isEmpty())
                {
                    byKey.remove(name, queue);
                }
            }
            pool.tellKey(key, () -> waiting(key));
        }
    }

    private boolean waiting(final byte[] key)
    {
        final Queue queue = byKey.get(ByteBuffer.wrap(key));
        return queue != null && !queue.waiters.isEmpty();
    }

    /**
     * Time a waiter out or unblock it, on its loop.
     *
     * @param reply its reply (CLIENT UNBLOCK ERROR's), or null for the timeout's.
     */
    public void end(final Waiter waiter, final ByteBuf reply)
    {
        waiter.end(reply);
    }

    /** The waiter's connection closed (or its command took something without it), on its loop. */
    public void abandon(final Waiter waiter)
    {
        waiter.abandon();
    }

    /**
     * CLIENT UNBLOCK of a connection of this node: ends its wait on its loop with {@code reply}.
     *
     * @return false when the connection is not blocked here.
     */
    public boolean unblock(final long connectionId, final ByteBuf reply)
    {
        final Waiter waiter = byConnection.get(connectionId);
        if (waiter == null)
        {
            if (reply != null)
            {
                reply.release();
            }
            return false;
        }
        waiter.loop().execute(() -> end(waiter, reply));
        return true;
    }

    /**
     * A key may hold something now: this node's waiters on it try, and each peer that has waiters on it is told
     * (a call each, answered once their waiters were queued to try).
     */
    public void ready(final byte[] key)
    {
        readyHere(key);
        if (mesh == null)
        {
            return;
        }
        final Set<Long> peers = new HashSet<>();
        pool.peersWaitingOn(key, peers);
        for (final long peer : peers)
        {
            try
            {
                mesh.call(peer, CALL_READY, key);
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
            }
        }
    }

    /** @return true when any connection of this node or of a peer is blocked on a key: a write signals nothing else. */
    public boolean anyWaiting()
    {
        return !byKey.isEmpty() || pool.anyPeerTopics();
    }

    /**
     * Serve this node's waiters on the key, oldest first, on this thread: a write is answered after the waiters it
     * woke here took what they could, as redis answers it. A round already under way on another thread serves again
     * once it ends instead.
     */
    private void readyHere(final byte[] key)
    {
        final Queue queue = byKey.get(ByteBuffer.wrap(key));
        if (queue == null)
        {
            return;
        }
        if (!queue.serving.compareAndSet(false, true))
        {
            queue.again = true;
            return;
        }
        do
        {
            queue.again = false;
            serveRound(queue);
            queue.serving.set(false);
        }
        while (queue.again && queue.serving.compareAndSet(false, true));
    }

    /** Readied by a peer: served on the oldest waiter's loop (the service's thread waits on nothing). */
    private void readyElsewhere(final byte[] key)
    {
        final Queue queue = byKey.get(ByteBuffer.wrap(key));
        final Waiter oldest = queue == null ? null : oldest(queue);
        if (oldest != null)
        {
            oldest.loop().execute(() -> readyHere(key));
        }
    }

    /**
     * The oldest waiter runs its command; while each takes something, the next. One being served on another thread
     * (its own run after blocking) is passed over: waiting for it could leave the others asleep beside an element.
     */
    private void serveRound(final Queue queue)
    {
        for (final Waiter waiter : queue.waiters)
        {
            int ran = Waiter.PASSED;
            try
            {
                ran = waiter.serve();
            }
            catch (final RuntimeException ex)
            {
                errors.onError(ex);
                return;
            }
            if (ran == Waiter.NOTHING)
            {
                return;
            }
        }
    }

    private static Waiter oldest(final Queue queue)
    {
        for (final Waiter waiter : queue.waiters)
        {
            if (!waiter.done())
            {
                return waiter;
            }
        }
        return null;
    }

    /** @return the connections blocked on this node, for INFO's blocked_clients. */
    public int blocked()
    {
        return byConnection.size();
    }

    /** @return the keys blocked on here (a copy), for tests and INFO. */
    List<ByteBuffer> keys()
    {
        return new ArrayList<>(byKey.keySet());
    }
}

package io.dkv.compute.blocking;

import io.dkv.compute.mesh.ComputeMesh;
import io.dkv.compute.mesh.MeshException;
import io.dkv.compute.interest.PoolInterest;
import io.dkv.compute.interest.Topic;
import io.dkv.compute.resp.RespReplies;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochNanoClock;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The connections of this node blocked on keys, and how a key readied anywhere in the pool wakes them, the pool's
 * longest waiter first.
 *
 * <p>The rules (kv-compute-node/README.md, "Blocking commands across compute nodes"):
 * <ul>
 * <li>A blocking command first runs as its non-blocking form; when it takes nothing, its connection is stamped with
 * the time it blocked, queued on each of its keys, the key's first waiter on this node is told to every peer (answered
 * before going on, as a SUBSCRIBE), and the command runs again: a write between the two runs is seen by the second,
 * one after it finds the waiter.</li>
 * <li>A command that may make a key a list or a sorted set (a push, ZADD, a move's destination, a STORE), through any
 * node, signals the key after it ran (after EXEC's or a script's commit): a round of serving starts on the writer's
 * thread. A signal that finds nothing to take costs a run of a command and changes nothing, so signals may be
 * spurious but are never missed.</li>
 * <li>A round serves the key's waiters of the whole pool, oldest stamp first, and goes from node to node: the node
 * that holds it serves its own waiters, oldest first, while each takes something and is older than every peer's
 * oldest as far as it heard ({@link PeerStamps}); then it hands the round to the peer that looks oldest, asking it
 * with the earliest stamp of the others (its own included). A peer whose oldest waiter is not later takes the round
 * and serves on its waiter's loop; one whose is later says when it blocked, which is kept, and the round looks again.
 * A waiter that takes nothing ends the round (the key is empty); so does a pool with no waiter left.</li>
 * </ul>
 * The element a waiter takes is taken by a transaction, as its non-blocking form takes it: it is taken once or not at
 * all, and a waiter whose connection is gone takes nothing. Stamps are the nodes' wall clocks in nanoseconds, pushed
 * past every stamp a peer sent: waiters of nodes whose clocks disagree by more than the time between their blocking
 * may be served out of turn, never twice nor left beside an element.
 */
public final class Waiters
{
    /** A key readied: the round of serving its waiters is offered to the node called. */
    public static final byte CALL_READY = 11;
    /** CLIENT UNBLOCK of a connection the caller does not have: ends its wait if it is blocked here. */
    public static final byte CALL_UNBLOCK = 13;
    /** What a connection unblocked with ERROR is answered. */
    static final String UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK";

    private static final int SERVED_ALL = 0;
    private static final int KEY_EMPTY = 1;
    private static final int TAKEN_OVER = 2;
    private static final int ACCEPTED = 1;

    private final Map<ByteBuffer, Queue> byKey = new ConcurrentHashMap<>();
    private final Map<Long, Waiter> byConnection = new ConcurrentHashMap<>();
    private final PeerStamps peerStamps = new PeerStamps();
    private final AtomicLong lastStamp = new AtomicLong();
    private final PoolInterest pool;
    private final ComputeMesh mesh;
    private final EpochNanoClock clock;
    private final ErrorHandler errors;
    /** Where a round a peer hands over runs: each waiter's command is a transaction, kept off the event loops. */
    private volatile Executor rounds;

    /** One key's waiters, oldest first, and whether a round of serving them is under way here. */
    private static final class Queue
    {
        final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();
        final AtomicBoolean serving = new AtomicBoolean();
        volatile boolean again;
    }

    /**
     * @param pool   tells the peers which keys this node's connections wait on, and which of theirs wait.
     * @param clock  stamps when a connection blocked: the node's wall clock, in nanoseconds.
     * @param errors where failed calls to peers are counted.
     */
    public Waiters(final PoolInterest pool, final EpochNanoClock clock, final ErrorHandler errors)
    {
        this.pool = pool;
        this.mesh = pool.mesh();
        this.clock = clock;
        this.errors = errors;
        if (mesh != null)
        {
            mesh.handle(CALL_READY, this::offered);
            // ends the wait on the waiter's loop: the service's thread waits on nothing
            mesh.handle(CALL_UNBLOCK, (caller, request) ->
                new byte[]{(byte)(unblockHere(request.getLong(), request.get() == 1) ? 1 : 0)});
        }
    }

    /**
     * @param rounds where a round a peer hands over runs (the node's store threads); by default the loop of the waiter
     *               it serves first.
     */
    public void roundsOn(final Executor rounds)
    {
        this.rounds = rounds;
    }

    /**
     * After its command took nothing, on the waiter's loop or a store thread: stamp it, queue it on its keys, tell the
     * peers, and run its command once more (rule 1), as a signal would.
     *
     * @return true when that run took something and answered it.
     */
    public boolean block(final Waiter waiter)
    {
        waiter.whenDone(() -> release(waiter));
        synchronized (byKey)
        {
            // stamped and queued together: each key's queue stays in stamp order
            waiter.stamp(nextStamp());
            for (final byte[] key : waiter.keys())
            {
                byKey.computeIfAbsent(ByteBuffer.wrap(key), k -> new Queue()).waiters.addLast(waiter);
            }
        }
        for (final byte[] key : waiter.keys())
        {
            pool.tell(new Topic(Topic.KEY, key), () -> waiting(key));
        }
        // counted blocked (INFO, CLIENT UNBLOCK) once stamped, queued and told: one blocked after it is stamped later
        byConnection.put(waiter.connectionId(), waiter);
        if (waiter.done())
        {
            // ended (its connection gone, drained) before it was queued, where this runs off its loop: its release ran
            // before there was anything to release
            release(waiter);
            return false;
        }
        if (waiter.serve() != Waiter.TOOK)
        {
            return false;
        }
        // a round of a write may have passed it over while it ran: what is left is for the others
        for (final byte[] key : waiter.keys())
        {
            round(key);
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
            synchronized (byKey)
            {
                final Queue queue = byKey.get(name);
                if (queue != null)
                {
                    queue.waiters.remove(waiter);
                    if (queue.waiters.isEmpty())
                    {
                        byKey.remove(name, queue);
                    }
                }
            }
            pool.tell(new Topic(Topic.KEY, key), () -> waiting(key));
        }
    }

    private boolean waiting(final byte[] key)
    {
        final Queue queue = byKey.get(ByteBuffer.wrap(key));
        return queue != null && !queue.waiters.isEmpty();
    }

    /**
     * Time a waiter out or unblock it, on its loop; or answer it with an error on the store thread where its queueing
     * failed. Its state is atomic: the reply goes out on its loop either way.
     *
     * @param reply its reply (CLIENT UNBLOCK ERROR's, a store error), or null for the timeout's.
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
     * CLIENT UNBLOCK: the connection's wait ends, as if it timed out or with redis's UNBLOCKED error, on whichever
     * node of the pool it is (connection ids are the pool's, {@code ConnectionIds}): this node's first, then each
     * peer's by a call, until one has it.
     *
     * @return false when no node has the connection blocked.
     */
    public boolean unblock(final long connectionId, final boolean error)
    {
        if (unblockHere(connectionId, error))
        {
            return true;
        }
        if (mesh == null)
        {
            return false;
        }
        // a node that has not met its peers yet (just started) would ask none of them
        pool.awaitReady();
        final byte[] request = ByteBuffer.allocate(Long.BYTES + 1).putLong(connectionId).put((byte)(error ? 1 : 0))
            .array();
        for (final long peer : mesh.peers())
        {
            try
            {
                final byte[] reply = mesh.call(peer, CALL_UNBLOCK, request);
                if (reply.length == 1 && reply[0] == 1)
                {
                    return true;
                }
            }
            catch (final MeshException ex)
            {
                errors.onError(ex);
            }
        }
        return false;
    }

    /**
     * @return true when CLIENT UNBLOCK of the connection would call peers, or wait for the node to meet them: it is
     * blocked on no connection here, and the node has peers or has not met them yet.
     */
    public boolean unblockAsksPeers(final long connectionId)
    {
        return mesh != null && !byConnection.containsKey(connectionId) && (!pool.ready() || !mesh.peers().isEmpty());
    }

    /** @return true when the connection is blocked on this node: its wait ends on its loop. */
    private boolean unblockHere(final long connectionId, final boolean error)
    {
        final Waiter waiter = byConnection.get(connectionId);
        if (waiter == null)
        {
            return false;
        }
        final ByteBuf reply;
        if (error)
        {
            reply = Unpooled.buffer(64);
            RespReplies.error(reply, UNBLOCKED);
        }
        else
        {
            reply = null;
        }
        waiter.loop().execute(() -> end(waiter, reply));
        return true;
    }

    /** A key may hold something now: a round of serving its waiters across the pool starts here (rule 2). */
    public void ready(final byte[] key)
    {
        round(key);
    }

    /** @return true when any connection of this node or of a peer is blocked on a key: a write signals nothing else. */
    public boolean anyWaiting()
    {
        return !byKey.isEmpty() || pool.any();
    }

    /**
     * Hold the key's round (rule 3): serve this node's waiters while they are the pool's oldest, then hand the round
     * to the peer that looks oldest. A round already serving here serves again once it is done instead.
     */
    private void round(final byte[] key)
    {
        final ByteBuffer name = ByteBuffer.wrap(key);
        final Set<Long> peers = new HashSet<>();
        pool.peersFor(Topic.KEY, key, peers);
        peerStamps.retain(name, peers);
        // each pass serves here, or learns a peer's true stamp, or hands the round on: a bound against surprises
        int passes = 2 * peers.size() + 4;
        while (passes-- > 0)
        {
            final Queue queue = byKey.get(name);
            final long peersOldest = peerStamps.earliest(name, peers, PeerStamps.NOBODY);
            if (queue != null && oldestWaiting(queue) <= peersOldest)
            {
                final int served = serveGuarded(queue, peersOldest);
                if (served != SERVED_ALL)
                {
                    return;
                }
            }
            if (peers.isEmpty() || handOn(key, name, peers, queue, false))
            {
                return;
            }
        }
        // the pool kept changing under the round (each pass met a stamp gone stale): it ends out of order rather than
        // leave an element beside a waiter
        final Queue queue = byKey.get(name);
        if (queue != null && serveGuarded(queue, PeerStamps.NONE) != SERVED_ALL)
        {
            return;
        }
        while (!peers.isEmpty() && !handOn(key, name, peers, queue, true))
        {
            // each offer declined or failed left its peer out
        }
    }

    /**
     * Serve this node's waiters not later than {@code bound}, unless a round does already on another thread: that
     * round serves again once it is done.
     *
     * @return {@link #SERVED_ALL}, {@link #KEY_EMPTY}, or {@link #TAKEN_OVER} when the other round was told to.
     */
    private int serveGuarded(final Queue queue, final long bound)
    {
        if (!queue.serving.compareAndSet(false, true))
        {
            queue.again = true;
            return TAKEN_OVER;
        }
        int served;
        do
        {
            queue.again = false;
            served = serveHere(queue, bound);
            queue.serving.set(false);
        }
        while (queue.again && queue.serving.compareAndSet(false, true));
        return served;
    }

    /**
     * This node's waiters on the key, oldest first, each run on this thread while it is older than the peers' oldest
     * as far as heard. One being served on another thread (its own run after blocking) is passed over: waiting for
     * it could leave the others asleep beside an element.
     *
     * @return {@link #KEY_EMPTY} when a waiter took nothing, else {@link #SERVED_ALL} (those older than the peers').
     */
    private int serveHere(final Queue queue, final long bound)
    {
        for (final Waiter waiter : queue.waiters)
        {
            if (waiter.stamp() > bound)
            {
                return SERVED_ALL;
            }
            int ran = Waiter.PASSED;
            try
            {
                ran = waiter.serve();
            }
            catch (final RuntimeException ex)
            {
                errors.onError(ex);
                return KEY_EMPTY;
            }
            if (ran == Waiter.NOTHING)
            {
                return KEY_EMPTY;
            }
        }
        return SERVED_ALL;
    }

    /**
     * Offer the round to the peer that looks oldest, with the earliest stamp of the others as its bound.
     *
     * @param force offer it with no bound, so that a peer with any waiter takes it.
     * @return true when a peer took the round; false when the one asked is later (kept) or failed, or had no waiter,
     * or declined a forced offer (those left out of the round).
     */
    private boolean handOn(final byte[] key, final ByteBuffer name, final Set<Long> peers, final Queue queue,
        final boolean force)
    {
        long asked = -1;
        long askedStamp = PeerStamps.NONE;
        for (final long peer : peers)
        {
            final long stamp = peerStamps.get(name, peer);
            if (asked == -1 || stamp < askedStamp)
            {
                asked = peer;
                askedStamp = stamp;
            }
        }
        final long mine = queue == null ? PeerStamps.NONE : oldestWaiting(queue);
        final long bound = force ? PeerStamps.NONE - 1 : Math.min(mine, peerStamps.earliest(name, peers, asked));
        final ByteBuffer request = ByteBuffer.allocate(2 * Long.BYTES + key.length);
        request.putLong(bound).putLong(mine).put(key);
        try
        {
            final ByteBuffer reply = ByteBuffer.wrap(mesh.call(asked, CALL_READY, request.array()));
            final boolean accepted = reply.get() == ACCEPTED;
            final long theirs = reply.getLong();
            observe(theirs);
            peerStamps.heard(name, asked, theirs);
            if (theirs == PeerStamps.NONE || force && !accepted)
            {
                peers.remove(asked);
            }
            return accepted;
        }
        catch (final MeshException ex)
        {
            errors.onError(ex);
            peers.remove(asked);
            return false;
        }
    }

    /**
     * A peer offers the round of a key, on the service's thread (which waits on nothing): taken when this node's
     * oldest waiter is not later than the bound, and served on a store thread ({@link #roundsOn}) or that waiter's
     * loop.
     */
    private byte[] offered(final long caller, final ByteBuffer request)
    {
        final long bound = request.getLong();
        final long callers = request.getLong();
        final byte[] key = new byte[request.remaining()];
        request.get(key);
        final ByteBuffer name = ByteBuffer.wrap(key);
        observe(callers);
        peerStamps.heard(name, caller, callers);
        final Queue queue = byKey.get(name);
        final Waiter oldest = queue == null ? null : oldest(queue);
        final long mine = oldest == null ? PeerStamps.NONE : oldest.stamp();
        final boolean take = oldest != null && mine <= bound;
        if (take)
        {
            // its loop outlives it, should it be done by then: the round taken goes on regardless
            final Executor on = rounds;
            (on != null ? on : oldest.loop()).execute(() -> round(key));
        }
        return ByteBuffer.allocate(1 + Long.BYTES).put((byte)(take ? ACCEPTED : 0)).putLong(mine).array();
    }

    /** @return the stamp of the queue's oldest waiter not done, {@link PeerStamps#NONE} when none. */
    private static long oldestWaiting(final Queue queue)
    {
        final Waiter oldest = oldest(queue);
        return oldest == null ? PeerStamps.NONE : oldest.stamp();
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

    /** @return a stamp later than every one this node made or heard of, and not before its clock. */
    private long nextStamp()
    {
        final long now = clock.nanoTime();
        return lastStamp.updateAndGet(last -> Math.max(last + 1, now));
    }

    private void observe(final long stamp)
    {
        if (stamp != PeerStamps.NONE)
        {
            lastStamp.accumulateAndGet(stamp, Math::max);
        }
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

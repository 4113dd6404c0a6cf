package io.dkv.client.membership;

import io.dkv.client.KvClientConfiguration;
import io.dkv.client.KvClientContext;
import io.dkv.client.KvException;
import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The memory tier's membership as a client last read it, shared by its threads: how many copies a
 * key has (fixed when the client connects), which of the client's memory nodes serve their copies
 * now, and where keys are placed before and after a membership change in progress ({@link Placement}).
 * Read again after a request to a node failed, at most once per {@link KvClientContext#unavailableRetryMs()}
 * (by whichever thread comes first), so that a failed node costs one read of the directory, not one per
 * operation; and every {@link KvClientContext#membershipRefreshMs()}. A client never acts on a membership
 * older than {@link KvClientContext#membershipLeaseMs()}: a membership change relies on it, and so do writers going on
 * without a node declared down. A client that read the node live before it was declared down may read it for a view
 * lease after that (it may have only paused, and resume): so writers of its keys wait until this client has known it
 * down for a view lease ({@link #downSettlesAt}), by when no view listing it live is acted on.
 */
public final class MembershipView
{
    private final Raas raas;
    private final MemoryNodeAvailability nodes;
    private final int replicas;
    private final boolean kept;
    private final NanoClock nanoClock;
    private final long afterFailureNanos;
    private final long periodNanos;
    private final long leaseNanos;
    private final AtomicLong lastRead;
    private final AtomicLong lastSuccess;
    /** Why the last read failed, or null after one succeeded: the cause of the error a stale view raises. */
    private volatile RaasException lastFailure;
    private volatile Placement placement;
    /** When this client first read each node down (the read's end, by its clock), 0 while it is not down. */
    private final AtomicLongArray downSince = new AtomicLongArray(MemoryNodeAvailability.CAPACITY);

    /**
     * @param membership what the directory said as the client connected (through its own driver or the standalone
     *                   one it is attached to); null when it could not be read and the context names one copy:
     *                   every node then serves.
     */
    public MembershipView(final Raas raas, final MemoryNodeAvailability nodes, final Membership membership,
        final KvClientContext context)
    {
        this.raas = raas;
        this.nodes = nodes;
        this.nanoClock = context.nanoClock();
        this.afterFailureNanos = context.unavailableRetryMs() * 1_000_000L;
        this.periodNanos = context.membershipRefreshMs() * 1_000_000L;
        this.leaseNanos = context.membershipLeaseMs() * 1_000_000L;
        this.lastRead = new AtomicLong(nanoClock.nanoTime());
        this.lastSuccess = new AtomicLong(lastRead.get());
        this.kept = membership != null;
        final int given = nodes.count();
        if (context.replicas() > given)
        {
            throw new KvException("this client asks for " + context.replicas() + " copies of each key (" +
                KvClientConfiguration.REPLICAS_PROP_NAME + ") but has " + given + " memory node" +
                (given == 1 ? "" : "s") + " " + Arrays.toString(nodes.nodeIds()) + ": at most one copy a node");
        }
        this.placement = Placement.of(membership, nodes);
        noteDown(placement, nanoClock.nanoTime());
        final int known = nodes.count();
        // the cluster's count may exceed its members (a MetaServer set to 2 with one memory node): keys then have one
        // copy a member, as ./dkv up says when it starts
        final int asked = context.replicas() > 0 ? context.replicas() : membership == null ? 1 : membership.replicas();
        this.replicas = Math.min(asked, known);
        // a node the membership does not list (registered, not admitted, or drained) is placed nowhere: keys are placed
        // over the members alone; one the application named itself is a mistake worth saying at once
        if (replicas >= 2 && membership != null && membership.epoch() != 0)
        {
            for (final long named : context.memoryNodes())
            {
                if (membership.state(named) == 0)
                {
                    throw new KvException("memory node " + named + " is not a member of the memory tier (" +
                        membership + "): with " + replicas + " copies of each key every memory node the client " +
                        "names must be one (register memory nodes with the memory role)");
                }
            }
        }
    }

    /** @return the membership the directory keeps now, or null when it keeps none. */
    public static Membership read(final Raas raas)
    {
        try
        {
            return raas.membership();
        }
        catch (final RaasException ex)
        {
            return null;
        }
    }

    /**
     * @return the membership as a client connects: how many copies each key has comes from it, unless the context
     * names one copy.
     * @throws KvException when it cannot be read and the context does not say that keys have one copy: a client
     *                     that guessed one copy where the store keeps more would write one replica alone, and a later
     *                     writer would roll the others' older value back over it.
     */
    public static Membership readAtConnect(final Raas raas, final KvClientContext context)
    {
        try
        {
            return raas.membership();
        }
        catch (final RaasException ex)
        {
            if (context.replicas() == 1)
            {
                return null;
            }
            throw new KvException("cannot read the membership of the memory tier, which says how many copies each " +
                "key has and which memory nodes serve them (" + ex.getMessage() + "): start the client once the " +
                "MetaServer answers, or name one copy with " + KvClientConfiguration.REPLICAS_PROP_NAME + "=1 for a " +
                "store that keeps one", ex);
        }
    }

    /** @return copies of each key: the context's count, else the directory's, at most one per node. */
    public int replicas()
    {
        return replicas;
    }

    /** @return the membership as last read, with the key placements it gives. */
    public Placement placement()
    {
        return placement;
    }

    /** @return true when the node's copies are read and written: it is live (or leaving and not gone yet). */
    public boolean serves(final int node)
    {
        return placement.serves(node);
    }

    public int state(final int node)
    {
        return placement.state(node);
    }

    public long epoch()
    {
        return placement.epoch;
    }

    /**
     * A node answered as this incarnation: when the membership lists it as another, the membership is
     * out of date (the node restarted, and is joining as the new one), so it is read again at once.
     *
     * @return true when the membership lists the node as that incarnation, or keeps no incarnations.
     */
    public boolean lists(final int node, final long incarnation)
    {
        final long listed = placement.incarnation(node);
        if (listed == 0 || listed == incarnation)
        {
            return true;
        }
        refreshNow();
        return placement.incarnation(node) == incarnation;
    }

    /**
     * A request to a node failed: read the membership again, unless a thread did within
     * {@link KvClientContext#unavailableRetryMs()}.
     *
     * @return true when it was read (whether or not it changed).
     */
    public boolean refresh()
    {
        return readIfOlderThan(afterFailureNanos);
    }

    /**
     * Read the membership again when no thread did within {@link KvClientContext#membershipRefreshMs()}: how a
     * client learns of changes no failed request tells it of (a member back, a membership change's next phase).
     *
     * @throws KvException when the membership was last read longer ago than the view lease and cannot be read now.
     */
    public void refreshIfDue()
    {
        final long now = nanoClock.nanoTime();
        if (now - lastRead.get() >= periodNanos)
        {
            readIfOlderThan(periodNanos);
        }
        if (kept && now - lastSuccess.get() > leaseNanos)
        {
            refreshNow();
            final long age = nanoClock.nanoTime() - lastSuccess.get();
            if (age > leaseNanos)
            {
                final RaasException why = lastFailure;
                throw new KvException("the membership of the memory tier was last read " + age / 1_000_000 +
                    " ms ago and cannot be read now (" + (why == null ? "no answer" : why.getMessage()) + "): a " +
                    "client acts on none older than " + leaseNanos / 1_000_000 + " ms (" +
                    KvClientConfiguration.MEMBERSHIP_LEASE_MS_PROP_NAME + "), since keys may have moved since", why);
            }
        }
    }

    /** Read the membership again now, whenever it was read last. */
    public void refreshNow()
    {
        final long now = nanoClock.nanoTime();
        lastRead.set(now);
        install(readNow(), now);
    }

    /**
     * @return the membership the directory keeps now, or null when it cannot be read, keeping why: the MetaServer
     * not answering and this client's standalone driver gone are told apart in the error a stale view raises.
     */
    private Membership readNow()
    {
        try
        {
            final Membership membership = raas.membership();
            lastFailure = null;
            return membership;
        }
        catch (final RaasException ex)
        {
            lastFailure = ex;
            return null;
        }
    }

    private boolean readIfOlderThan(final long ageNanos)
    {
        final long now = nanoClock.nanoTime();
        final long at = lastRead.get();
        if (now - at < ageNanos || !lastRead.compareAndSet(at, now))
        {
            return false;
        }
        install(readNow(), now);
        return true;
    }

    private void install(final Membership membership, final long readAt)
    {
        if (membership == null)
        {
            return;
        }
        lastSuccess.accumulateAndGet(readAt, (a, b) -> b - a > 0 ? b : a);
        if (membership.epoch() != placement.epoch)
        {
            final Placement installed = Placement.of(membership, nodes);
            placement = installed;
            noteDown(installed, nanoClock.nanoTime());
        }
    }

    /**
     * @param readEnd when the read that gave the placement ended: the node was declared down before it, so every view
     *                listing it live was read before it too.
     */
    private void noteDown(final Placement read, final long readEnd)
    {
        for (int node = 0; node < read.nodeCount(); node++)
        {
            if (read.state(node) == Membership.DOWN)
            {
                downSince.compareAndSet(node, 0, readEnd);
            }
            else
            {
                downSince.set(node, 0);
            }
        }
    }

    /**
     * @return when writers of the node's keys may go on without it (its declaration down is a view lease old by this
     * client's clock), or 0 when it is not down.
     */
    public long downSettlesAt(final int node)
    {
        final long since = downSince.get(node);
        return since == 0 ? 0 : since + leaseNanos;
    }

    public String describe(final int node)
    {
        return placement.describe(node);
    }

    /**
     * One read of the membership, by the client's node indices: each node's state and incarnation, and the members
     * keys are placed over before and after the membership change in progress (the same two lists when none runs).
     * A node the membership does not list is placed only where the directory keeps no membership at all. Immutable:
     * a thread that placed a key with it keeps it for the operation.
     */
    public static final class Placement
    {
        public final long epoch;
        public final int phase;
        private final int[] states;
        private final long[] incarnations;
        private final int[] placements;
        private final long[] leftLive;
        private final long[] nodeIds;
        private final long[] beforeIds;
        private final int[] beforeNodes;
        private final long[] afterIds;
        private final int[] afterNodes;

        private Placement(final long epoch, final int phase, final long[] nodeIds, final int[] states,
            final long[] incarnations, final int[] placements, final long[] leftLive)
        {
            this.leftLive = leftLive;
            this.epoch = epoch;
            this.phase = phase;
            this.nodeIds = nodeIds;
            this.states = states;
            this.incarnations = incarnations;
            this.placements = placements;
            this.beforeNodes = select(placements, Membership.PLACED_BEFORE);
            this.afterNodes = select(placements, Membership.PLACED_AFTER);
            this.beforeIds = idsOf(beforeNodes);
            this.afterIds = idsOf(afterNodes);
        }

        static Placement of(final Membership membership, final MemoryNodeAvailability nodes)
        {
            // epoch 0: the directory keeps no membership (a fixed list of who is up): every node the client knows is
            // placed, as when it keeps none at all, and nobody else
            final boolean kept = membership != null && membership.epoch() != 0;
            if (kept)
            {
                // members the client did not know of joined since it connected: each gets its index for good
                for (final long member : membership.memberIds())
                {
                    nodes.add(member);
                }
            }
            final long[] ids = nodes.nodeIds();
            final int[] states = new int[ids.length];
            final long[] incarnations = new long[ids.length];
            final int[] placements = new int[ids.length];
            final long[] leftLive = new long[ids.length];
            for (int i = 0; i < ids.length; i++)
            {
                leftLive[i] = membership == null ? 0 : membership.leftLive(ids[i]);
                states[i] = membership == null ? Membership.LIVE : membership.state(ids[i]);
                incarnations[i] = membership == null ? 0 : membership.incarnation(ids[i]);
                // a node the directory does not list is no member: nobody may say it still holds what it held
                placements[i] = !kept ? Membership.PLACED : membership.placement(ids[i]);
            }
            return new Placement(membership == null ? 0 : membership.epoch(),
                membership == null ? Membership.STEADY : membership.phase(), ids, states, incarnations, placements,
                leftLive);
        }

        private static int[] select(final int[] placements, final int flag)
        {
            int count = 0;
            for (final int placement : placements)
            {
                count += (placement & flag) != 0 ? 1 : 0;
            }
            final int[] selected = new int[count];
            count = 0;
            for (int i = 0; i < placements.length; i++)
            {
                if ((placements[i] & flag) != 0)
                {
                    selected[count++] = i;
                }
            }
            return selected;
        }

        private long[] idsOf(final int[] indices)
        {
            final long[] ids = new long[indices.length];
            for (int i = 0; i < indices.length; i++)
            {
                ids[i] = nodeIds[indices[i]];
            }
            return ids;
        }

        /**
         * The key's replicas in the placement before the change in progress (the only one when none runs).
         *
         * @param out filled with the client's node indices, highest weight first.
         * @return how many were filled.
         */
        public int before(final long hash, final int replicas, final int[] out)
        {
            return place(hash, replicas, beforeIds, beforeNodes, out);
        }

        /** As {@link #before}, in the placement the change in progress leads to. */
        public int after(final long hash, final int replicas, final int[] out)
        {
            return place(hash, replicas, afterIds, afterNodes, out);
        }

        private static int place(final long hash, final int replicas, final long[] ids, final int[] indices,
            final int[] out)
        {
            if (ids.length == 0)
            {
                return 0;
            }
            final int count = Rendezvous.top(hash, ids, replicas, out);
            for (int p = 0; p < count; p++)
            {
                out[p] = indices[out[p]];
            }
            return count;
        }

        public boolean changing()
        {
            return phase != Membership.STEADY;
        }

        public boolean serves(final int node)
        {
            final int state = state(node);
            return state == Membership.LIVE || state == Membership.LEAVING;
        }

        public int state(final int node)
        {
            // a node added to the client after this placement was read is not placed in it
            return node < states.length ? states[node] : 0;
        }

        /** @return the node's placement flags ({@link Membership#PLACED_BEFORE}, ...), 0 when it is placed nowhere. */
        public int placement(final int node)
        {
            return node < placements.length ? placements[node] : 0;
        }

        /** @return the id of the node at this client's index {@code node}, below {@link #nodeCount}. */
        public long nodeId(final int node)
        {
            return nodeIds[node];
        }

        /** @return nodes known when this was read: indices below it have their place in it. */
        public int nodeCount()
        {
            return nodeIds.length;
        }

        /**
         * @return when the node last stopped serving ({@link Membership#leftLive}): the membership epoch, with
         * {@link Membership#MEMORY_LOST} once it came back as another incarnation; 0 while it serves or when unknown.
         */
        public long leftLive(final int node)
        {
            return node < leftLive.length ? leftLive[node] : 0;
        }

        /**
         * Of a key's replicas, none serving (every one went down: paused past their leases, say), the one whose
         * copies hold every write acknowledged: the replica that stopped serving last, since every write acknowledged
         * was made on each replica serving at the time, and it served longest. Only if it came back joining as the
         * incarnation it served as (its memory is what it held); never guessed where the times are unknown.
         *
         * @return its node index, or -1 when it is not back, came back as another incarnation, or some replica's time
         * is unknown (0).
         */
        public int lastToServe(final int[] nodes, final int count)
        {
            int last = -1;
            long latest = 0;
            for (int p = 0; p < count; p++)
            {
                final long left = leftLive(nodes[p]);
                if (left == 0)
                {
                    return -1;
                }
                final long epochLeft = left & ~Membership.MEMORY_LOST;
                if (epochLeft > latest)
                {
                    latest = epochLeft;
                    last = nodes[p];
                }
            }
            return last >= 0 && isBackWithItsMemory(last) ? last : -1;
        }

        /**
         * @return true when the node is joining as the incarnation it last served as: its memory holds what it held
         * when it stopped serving, so its copies may be the ones to settle on ({@link #lastToServe}).
         */
        public boolean isBackWithItsMemory(final int node)
        {
            final long left = leftLive(node);
            return state(node) == Membership.JOINING && left != 0 && (left & Membership.MEMORY_LOST) == 0;
        }

        long incarnation(final int node)
        {
            return node < incarnations.length ? incarnations[node] : 0;
        }

        public String describe(final int node)
        {
            return "memory node " + (node < nodeIds.length ? nodeIds[node] : "#" + node) + " (" +
                Membership.stateName(state(node)) + " in membership epoch " + epoch +
                (phase == Membership.STEADY ? "" : ", change " + Membership.phaseName(phase)) + ")";
        }
    }
}

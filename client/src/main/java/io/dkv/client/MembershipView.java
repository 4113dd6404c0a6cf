package io.dkv.client;

import io.dkv.raas.Membership;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasException;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory tier's membership as a client last read it, shared by its threads: how many copies a
 * key has (fixed when the client connects) and which of the client's memory nodes serve their copies
 * now. Read again after a request to a node failed, at most once per
 * {@link KvClientContext#unavailableRetryMs()} (by whichever thread comes first), so that a failed
 * node costs one read of the directory, not one per operation.
 */
final class MembershipView
{
    private final Raas raas;
    private final long[] nodeIds;
    private final int replicas;
    private final NanoClock nanoClock;
    private final long afterFailureNanos;
    private final long periodNanos;
    private final AtomicLong lastRead;
    /** Per client node (index into nodeIds): its state, replaced whole by each read. */
    private volatile int[] states;
    /** Per client node: the incarnation the membership lists it as, or 0 where it keeps none; replaced with states. */
    private volatile long[] incarnations;
    private volatile long epoch;

    /**
     * @param membership what the directory said as the client connected; null when it keeps no membership (a
     *                   client attached to a standalone driver): every node then serves, and keys have one copy
     *                   unless the context names more.
     */
    MembershipView(final Raas raas, final long[] nodeIds, final Membership membership, final KvClientContext context)
    {
        this.raas = raas;
        this.nodeIds = nodeIds.clone();
        this.nanoClock = context.nanoClock();
        this.afterFailureNanos = context.unavailableRetryMs() * 1_000_000L;
        this.periodNanos = context.membershipRefreshMs() * 1_000_000L;
        this.lastRead = new AtomicLong(nanoClock.nanoTime());
        if (context.replicas() > nodeIds.length)
        {
            throw new KvException("this client asks for " + context.replicas() + " copies of each key (" +
                KvClientConfiguration.REPLICAS_PROP_NAME + ") but has " + nodeIds.length + " memory node" +
                (nodeIds.length == 1 ? "" : "s") + " " + Arrays.toString(nodeIds) + ": at most one copy a node");
        }
        // the cluster's count may exceed its members (a MetaServer set to 2 with one memory node): keys then have one
        // copy a member, as ./dkv up says when it starts
        final int asked = context.replicas() > 0 ? context.replicas() : membership == null ? 1 : membership.replicas();
        this.replicas = Math.min(asked, nodeIds.length);
        this.states = membership == null ? allLive(nodeIds.length) : statesOf(membership);
        this.incarnations = membership == null ? new long[nodeIds.length] : incarnationsOf(membership);
        this.epoch = membership == null ? 0 : membership.epoch();
        if (replicas >= 2)
        {
            for (int i = 0; i < nodeIds.length; i++)
            {
                if (states[i] == 0)
                {
                    throw new KvException("memory node " + nodeIds[i] + " is not a member of the memory tier (" +
                        (membership == null ? "the directory keeps no membership" : membership) + "): with " +
                        replicas + " copies of each key every memory node of the client must be one (register " +
                        "memory nodes with the memory role)");
                }
            }
        }
    }

    /** @return the membership the directory keeps now, or null when it keeps none. */
    static Membership read(final Raas raas)
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
    static Membership readAtConnect(final Raas raas, final KvClientContext context)
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
    int replicas()
    {
        return replicas;
    }

    /** @return true when the node's copies are read and written: it is live (or leaving and not gone yet). */
    boolean serves(final int node)
    {
        final int state = states[node];
        return state == Membership.LIVE || state == Membership.LEAVING;
    }

    int state(final int node)
    {
        return states[node];
    }

    long epoch()
    {
        return epoch;
    }

    /**
     * A node answered as this incarnation: when the membership lists it as another, the membership is
     * out of date (the node restarted, and is joining as the new one), so it is read again at once.
     *
     * @return true when the membership lists the node as that incarnation, or keeps no incarnations.
     */
    boolean lists(final int node, final long incarnation)
    {
        final long listed = incarnations[node];
        if (listed == 0 || listed == incarnation)
        {
            return true;
        }
        refreshNow();
        return incarnations[node] == incarnation;
    }

    /**
     * A request to a node failed: read the membership again, unless a thread did within
     * {@link KvClientContext#unavailableRetryMs()}.
     *
     * @return true when it was read (whether or not it changed).
     */
    boolean refresh()
    {
        return readIfOlderThan(afterFailureNanos);
    }

    /**
     * Read the membership again when no thread did within {@link KvClientContext#membershipRefreshMs()}: how a
     * client learns of changes no failed request tells it of (a member back, a replica count of a new epoch).
     */
    void refreshIfDue()
    {
        if (nanoClock.nanoTime() - lastRead.get() >= periodNanos)
        {
            readIfOlderThan(periodNanos);
        }
    }

    /** Read the membership again now, whenever it was read last. */
    void refreshNow()
    {
        lastRead.set(nanoClock.nanoTime());
        final Membership membership = read(raas);
        if (membership != null && membership.epoch() != epoch)
        {
            incarnations = incarnationsOf(membership);
            states = statesOf(membership);
            epoch = membership.epoch();
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
        final Membership membership = read(raas);
        if (membership != null && membership.epoch() != epoch)
        {
            incarnations = incarnationsOf(membership);
            states = statesOf(membership);
            epoch = membership.epoch();
        }
        return true;
    }

    private int[] statesOf(final Membership membership)
    {
        final int[] byNode = new int[nodeIds.length];
        for (int i = 0; i < nodeIds.length; i++)
        {
            // a node the directory does not list is no member: nobody may say it still holds what it held
            byNode[i] = membership.state(nodeIds[i]);
        }
        return byNode;
    }

    private long[] incarnationsOf(final Membership membership)
    {
        final long[] byNode = new long[nodeIds.length];
        for (int i = 0; i < nodeIds.length; i++)
        {
            byNode[i] = membership.incarnation(nodeIds[i]);
        }
        return byNode;
    }

    private static int[] allLive(final int count)
    {
        final int[] states = new int[count];
        Arrays.fill(states, Membership.LIVE);
        return states;
    }

    String describe(final int node)
    {
        return "memory node " + nodeIds[node] + " (" + Membership.stateName(states[node]) + " in membership epoch " +
            epoch + ")";
    }
}

package io.dkv.raas.driver;

import io.dkv.raas.ControlHeader;
import io.dkv.raas.RaasContext;
import io.dkv.verbs.PortAddress;
import org.agrona.collections.Object2ObjectHashMap;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Which CONNECTs a driver takes, and what the connections they made hold until they are used.
 *
 * <p>A CONNECT costs its sender one message and cost the listener a connection with a registered
 * buffer for as long as the application kept it: a peer sending thousands filled the device's
 * regions and the memory behind them, and locked new nodes out. Now:
 * <ul>
 *     <li>an inbound connection holds no advertised buffer until it is used (a message received on it,
 *     or sent by the application), and the buffers of used ones are bounded in bytes and regions;</li>
 *     <li>inbound connections accepted but not used are bounded per peer and in all: one beyond takes
 *     the place of the oldest (never a refusal, so a flood cannot keep a real node out: that node uses
 *     its connection within a round trip, the flood's never), and any is reclaimed after a deadline;</li>
 *     <li>inbound connections in all are bounded per peer and per driver: beyond, a CONNECT is refused,
 *     with the reason and figures in the REFUSE.</li>
 * </ul>
 *
 * <p>A peer is the address a CONNECT claims, the one its ACCEPT goes to. The claimed node id costs
 * nothing to vary; the completion of the SEND that carried a CONNECT names only the source queue pair,
 * whose number is unique per device only (every driver's first DC initiator has the same one), and no
 * source address: there is no transport-level source to key on. An address is forgeable too, but a
 * connection made under an address not one's own can never be used (its ACCEPT went elsewhere), so it
 * counts among the unused and is reclaimed; a peer that wants to use its connections counts under its own
 * address. Forging a real node's address fills that address's unused places at most, which reclaim the
 * oldest rather than refuse.
 *
 * <p>Every method runs under this object's lock, never while a connection is being closed: connections
 * to reclaim are handed back and closed by the caller, because closing one waits for its receiver's lock,
 * and a receiver may be polling, which may take a CONNECT here.
 */
final class ConnectAdmission
{
    static final int UNUSED = 0;
    static final int USED = 1;
    static final int RECLAIMED = 2;

    /** What admission knows of one inbound connection. */
    static final class Inbound
    {
        final Peer peer;
        final DriverListener listener;
        final long acceptedAtMillis;
        DriverConnection connection;
        volatile int state = UNUSED;
        boolean released;
        long advertBytes;
        Inbound olderInDriver;
        Inbound newerInDriver;
        Inbound olderOfPeer;
        Inbound newerOfPeer;

        Inbound(final Peer peer, final DriverListener listener, final long acceptedAtMillis)
        {
            this.peer = peer;
            this.listener = listener;
            this.acceptedAtMillis = acceptedAtMillis;
        }
    }

    /** The inbound connections of one address. */
    static final class Peer
    {
        final PortAddress address;
        int inbound;
        int unused;
        Inbound oldestUnused;
        Inbound newestUnused;

        Peer(final PortAddress address)
        {
            this.address = address;
        }
    }

    /**
     * What {@link #admit} decided, owned by its one caller (the thread delivering CONNECTs): the connection
     * admitted, or why not; and up to two unused connections whose places it took, for the caller to close.
     */
    static final class Decision
    {
        Inbound admitted;
        int reason;
        int held;
        int limit;
        Inbound reclaimedOfPeer;
        Inbound reclaimedInDriver;

        void clear()
        {
            admitted = null;
            reason = 0;
            held = 0;
            limit = 0;
            reclaimedOfPeer = null;
            reclaimedInDriver = null;
        }
    }

    private final int inboundPerPeer;
    private final int inboundMax;
    private final int unusedPerPeer;
    private final int unusedMax;
    private final long unusedMs;
    private final long advertBytesMax;
    private final int advertsMax;
    private final Object2ObjectHashMap<PortAddress, Peer> peers = new Object2ObjectHashMap<>();
    private Inbound oldestUnused;
    private Inbound newestUnused;
    private int inbound;
    private int unused;
    private int adverts;
    private long advertBytes;
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong reclaims = new AtomicLong();

    ConnectAdmission(final RaasContext context, final int deviceRegions)
    {
        this.inboundPerPeer = context.inboundPerPeer();
        this.inboundMax = context.inboundMax();
        this.unusedPerPeer = context.unusedPerPeer();
        this.unusedMax = context.unusedMax();
        this.unusedMs = context.unusedMs();
        this.advertBytesMax = context.inboundAdvertBytes();
        // the rest of the device's regions serve outbound connections, named regions and registrations
        this.advertsMax = deviceRegions / 2;
    }

    /**
     * Take a CONNECT from the address, or say why not.
     *
     * @param decision filled in: {@code admitted} (to be given its connection), or the refusal; and the
     *                 unused connections reclaimed to make room, which the caller closes.
     */
    synchronized void admit(
        final PortAddress address, final DriverListener listener, final long nowMillis, final Decision decision)
    {
        decision.clear();
        Peer peer = peers.get(address);
        final int held = peer == null ? 0 : peer.inbound;
        if (held >= inboundPerPeer)
        {
            refuse(decision, ControlHeader.REFUSE_PEER_LIMIT, held, inboundPerPeer);
            return;
        }
        if (inbound >= inboundMax)
        {
            refuse(decision, ControlHeader.REFUSE_DRIVER_LIMIT, inbound, inboundMax);
            return;
        }
        if (peer == null)
        {
            peer = new Peer(address);
            peers.put(address, peer);
        }
        // counted before making room, so that the peer stays known when its own oldest goes
        peer.inbound++;
        inbound++;
        if (peer.unused >= unusedPerPeer)
        {
            decision.reclaimedOfPeer = reclaim(peer.oldestUnused);
        }
        if (unused >= unusedMax)
        {
            decision.reclaimedInDriver = reclaim(oldestUnused);
        }
        final Inbound admitted = new Inbound(peer, listener, nowMillis);
        link(admitted);
        decision.admitted = admitted;
    }

    private void refuse(final Decision decision, final int reason, final int held, final int limit)
    {
        refusals.incrementAndGet();
        decision.reason = reason;
        decision.held = held;
        decision.limit = limit;
    }

    /** Count a CONNECT refused for a reason admission does not see (no listener, no slot for the answer). */
    void countRefusal()
    {
        refusals.incrementAndGet();
    }

    /**
     * @return the unused connections past their deadline, oldest first, linked through
     * {@link Inbound#newerInDriver}, for the caller to close; null when none.
     */
    synchronized Inbound reclaimExpired(final long nowMillis)
    {
        Inbound first = null;
        Inbound last = null;
        while (oldestUnused != null && nowMillis - oldestUnused.acceptedAtMillis >= unusedMs)
        {
            final Inbound expired = reclaim(oldestUnused);
            if (first == null)
            {
                first = expired;
            }
            else
            {
                last.newerInDriver = expired;
            }
            last = expired;
        }
        return first;
    }

    /** Take an unused connection out of the counts at once (the caller closes it): the bounds hold strictly. */
    private Inbound reclaim(final Inbound victim)
    {
        unlink(victim);
        victim.state = RECLAIMED;
        reclaims.incrementAndGet();
        uncount(victim);
        return victim;
    }

    /**
     * The connection was used: it leaves the unused and may hold an advertised buffer.
     *
     * @return the bytes of advertised buffer it may register now: 0 when it was used before, was
     * reclaimed, or the bound on inbound buffers leaves no room.
     */
    long onUsed(final Inbound entry, final int advertBytesWanted)
    {
        if (entry.state != UNUSED)
        {
            return 0;
        }
        synchronized (this)
        {
            if (entry.state != UNUSED || entry.released)
            {
                return 0;
            }
            unlink(entry);
            entry.state = USED;
            if (adverts >= advertsMax || advertBytes + advertBytesWanted > advertBytesMax)
            {
                return 0;
            }
            adverts++;
            advertBytes += advertBytesWanted;
            entry.advertBytes = advertBytesWanted;
            return advertBytesWanted;
        }
    }

    /** The advertised buffer counted by {@link #onUsed} could not be registered, or was deregistered. */
    synchronized void onAdvertGone(final Inbound entry)
    {
        if (entry.advertBytes != 0)
        {
            adverts--;
            advertBytes -= entry.advertBytes;
            entry.advertBytes = 0;
        }
    }

    /** The connection closed (or was never made): it no longer counts. */
    synchronized void release(final Inbound entry)
    {
        if (entry.released)
        {
            return;
        }
        if (entry.state == UNUSED)
        {
            unlink(entry);
        }
        uncount(entry);
    }

    private void uncount(final Inbound entry)
    {
        entry.released = true;
        onAdvertGone(entry);
        final Peer peer = entry.peer;
        inbound--;
        if (--peer.inbound == 0)
        {
            peers.remove(peer.address);
        }
    }

    private void link(final Inbound entry)
    {
        entry.olderInDriver = newestUnused;
        if (newestUnused != null)
        {
            newestUnused.newerInDriver = entry;
        }
        else
        {
            oldestUnused = entry;
        }
        newestUnused = entry;
        final Peer peer = entry.peer;
        entry.olderOfPeer = peer.newestUnused;
        if (peer.newestUnused != null)
        {
            peer.newestUnused.newerOfPeer = entry;
        }
        else
        {
            peer.oldestUnused = entry;
        }
        peer.newestUnused = entry;
        unused++;
        peer.unused++;
    }

    private void unlink(final Inbound entry)
    {
        if (entry.olderInDriver != null)
        {
            entry.olderInDriver.newerInDriver = entry.newerInDriver;
        }
        else
        {
            oldestUnused = entry.newerInDriver;
        }
        if (entry.newerInDriver != null)
        {
            entry.newerInDriver.olderInDriver = entry.olderInDriver;
        }
        else
        {
            newestUnused = entry.olderInDriver;
        }
        final Peer peer = entry.peer;
        if (entry.olderOfPeer != null)
        {
            entry.olderOfPeer.newerOfPeer = entry.newerOfPeer;
        }
        else
        {
            peer.oldestUnused = entry.newerOfPeer;
        }
        if (entry.newerOfPeer != null)
        {
            entry.newerOfPeer.olderOfPeer = entry.olderOfPeer;
        }
        else
        {
            peer.newestUnused = entry.olderOfPeer;
        }
        entry.olderInDriver = null;
        entry.newerInDriver = null;
        entry.olderOfPeer = null;
        entry.newerOfPeer = null;
        unused--;
        peer.unused--;
    }

    synchronized int inbound()
    {
        return inbound;
    }

    synchronized int unused()
    {
        return unused;
    }

    synchronized int adverts()
    {
        return adverts;
    }

    synchronized long advertBytes()
    {
        return advertBytes;
    }

    long refusals()
    {
        return refusals.get();
    }

    long reclaims()
    {
        return reclaims.get();
    }
}

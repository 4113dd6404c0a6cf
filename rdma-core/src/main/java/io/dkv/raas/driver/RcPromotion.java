package io.dkv.raas.driver;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SharedReceiveQueue;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.INT;

/**
 * RC queue pairs to hot peers: a peer that gets many requests in a window (or a connection that asks
 * with {@link io.dkv.raas.Flags#FORCE_RC}) is promoted from DC to an RC queue pair of a bounded pool,
 * asked for with RC_CONNECT and answered with RC_ACCEPT or RC_REFUSE; an RC queue pair that went idle
 * is retired gracefully (RC_CLOSE, drained, RC_CLOSED) and the route goes back to DC.
 */
final class RcPromotion
{
    /** After a promotion the peer did not answer, it stays on DC this many stall periods. */
    static final int PROMOTION_BACKOFF_STALLS = 10;
    /** A datagram handshake (RC-only) unanswered for this long is asked again: datagrams can be lost. */
    static final long HANDSHAKE_TIMEOUT_MS = 250;
    /** After a peer refused a promotion (no room in its pool, or an RC pair with us closing): this many windows. */
    static final int REFUSAL_BACKOFF_WINDOWS = 10;

    private final RaasContext context;
    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final SharedReceiveQueue srq;
    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final Routes routes;
    private final QpPool qpPool;
    private final RequestPipeline pipeline;
    private final DriverMillis clock;
    /** No DC here or at the peers: every route needs its RC queue pair, kept for as long as the route is used. */
    private final boolean rcOnly;
    private final AtomicInteger rcCount = new AtomicInteger();
    private final CopyOnWriteArrayList<PooledQp> rcs = new CopyOnWriteArrayList<>();
    private final Map<Integer, PooledQp> rcByQpn = new ConcurrentHashMap<>();
    private final AtomicInteger rcRecycles = new AtomicInteger();
    private final AtomicLong rcPromotions = new AtomicLong();
    /**
     * Nodes a connection forced to RC ({@link io.dkv.raas.Flags#FORCE_RC}) whose RC queue pair has not
     * held yet: asked again on each housekeeping turn the back-off allows, so that one refusal or one
     * message short of a slot at connect does not leave the connection on DC for good.
     */
    private final Set<Long> rcWanted = ConcurrentHashMap.newKeySet();

    RcPromotion(
        final RaasContext context,
        final ProtectionDomain pd,
        final CompletionQueue sendCq,
        final CompletionQueue recvCq,
        final SharedReceiveQueue srq,
        final ControlMessages control,
        final ReceiveBuffers receiveBuffers,
        final Routes routes,
        final QpPool qpPool,
        final RequestPipeline pipeline,
        final DriverMillis clock,
        final boolean rcOnly)
    {
        this.rcOnly = rcOnly;
        this.context = context;
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.routes = routes;
        this.qpPool = qpPool;
        this.pipeline = pipeline;
        this.clock = clock;
    }

    // ---------------------------------------------------------------------------------------------
    // asking

    /** A one-sided request to the route's node: promote the route once enough came in a window. */
    void countRequest(final NodeRoute route, final long nowMillis)
    {
        final int threshold = context.rcPromoteRequests();
        if (threshold == 0 || route.rc != null || route.promoting || nowMillis < route.promoteNotBeforeMillis)
        {
            return;
        }
        if (nowMillis - route.windowStartMillis > context.rcPromoteWindowMs())
        {
            route.windowStartMillis = nowMillis;
            route.windowRequests = 0;
        }
        if (++route.windowRequests >= threshold)
        {
            // one attempt per window's worth of requests, whatever comes of it: not one per request
            route.windowStartMillis = nowMillis;
            route.windowRequests = 0;
            promote(route);
        }
    }

    /** A connection forced to RC: promote its route now, and again until an RC queue pair holds. */
    void want(final NodeRoute route)
    {
        rcWanted.add(route.node.id());
        promote(route);
    }

    /**
     * RC-only: a request found the route without its RC queue pair (it failed UNREACHABLE); housekeeping asks for
     * one, so that the requests after it find it.
     */
    void wantLater(final NodeRoute route)
    {
        rcWanted.add(route.node.id());
    }

    /**
     * RC-only: wait, on the caller's thread, until the route has its RC queue pair, asking the peer (through its
     * datagram queue pair) and again when the handshake goes unanswered.
     *
     * @throws RaasException when none holds within the timeout.
     */
    void awaitRc(final NodeRoute route)
    {
        final long deadline = pipeline.nanoClock().nanoTime() + context.timeoutMs() * 1_000_000L;
        int spins = 0;
        while (true)
        {
            final PooledQp rc = route.rc;
            if (rc != null && !rc.broken)
            {
                return;
            }
            final long now = clock.read();
            expireHandshake(route, now);
            if (!route.promoting && now >= route.promoteNotBeforeMillis)
            {
                promote(route);
            }
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
            }
            if ((spins & 1023) == 1023 && pipeline.nanoClock().nanoTime() > deadline)
            {
                throw new RaasException("no RC queue pair to node " + route.node.id() + " within " +
                    context.timeoutMs() + " ms: without DC (dkv.raas.rc.only) a node is reached over RC only, " +
                    "and its datagram handshake went unanswered");
            }
        }
    }

    /** A handshake unanswered too long: drop the queue pair made for it, so the next promotion asks again. */
    private void expireHandshake(final NodeRoute route, final long nowMillis)
    {
        if (!rcOnly)
        {
            return;
        }
        // under the route's lock, as an answer to the handshake is taken (onRcAccept): one or the other
        synchronized (route)
        {
            if (!route.promoting || nowMillis - route.promotingSinceMillis <= HANDSHAKE_TIMEOUT_MS)
            {
                return;
            }
            final PooledQp stale = route.pendingRc;
            route.pendingRc = null;
            route.promoting = false;
            if (stale != null && route.rc != stale && rcByQpn.remove(stale.qp.qpNum(), stale))
            {
                rcCount.decrementAndGet();
                stale.qp.close();
            }
        }
    }

    /** Start turning the route into an RC queue pair: ask the peer for its end. */
    private void promote(final NodeRoute route)
    {
        synchronized (route)
        {
            if (route.rc != null || route.promoting || (!rcOnly && rcCount.get() >= context.rcPoolSize()))
            {
                return;
            }
            route.promoting = true;
            route.promotingSinceMillis = clock.read();
        }
        // the message first: a queue pair is costly to make and to drop (on shm a file mapped, then
        // unmapped with every thread of the process stopped), so none is made that cannot be asked for
        final RequestSlot slot = control.controlSlot(route, 0, TYPE_RC_CONNECT, 0, 0, CONNECT_LENGTH);
        if (slot == null)
        {
            // every request slot is in use, or one is on its way back: again after a window, not at once
            route.promoteNotBeforeMillis = clock.time() + context.rcPromoteWindowMs();
            route.promoting = false;
            return;
        }
        final PooledQp rc = createRc(route);
        if (rc == null)
        {
            control.discard(slot);
            route.promoting = false;
            return;
        }
        rc.initiatedHere = true;
        route.pendingRc = rc;
        rcPromotions.incrementAndGet();
        control.writeSelf(slot.staging, 0);
        slot.staging.set(INT, CONNECT_QPN_OFFSET, rc.qp.qpNum());
        control.post(slot, CONNECT_LENGTH);
    }

    private PooledQp createRc(final NodeRoute route)
    {
        if (rcCount.incrementAndGet() > context.rcPoolSize() && !rcOnly)
        {
            rcCount.decrementAndGet();
            return null;
        }
        final QueuePair qp = pd.createQp(new QpInitAttributes().type(QpType.RC).sendCq(sendCq)
            .recvCq(recvCq).srq(srq).maxSendWr(context.qpDepth()).maxSendSge(2).maxInlineData(64));
        qp.modify(QpAttributes.init(Access.REMOTE_MASK));
        final PooledQp pooled = new PooledQp(qp, context.qpDepth(), context.qpDepth(), context.qpStallMs());
        pooled.peer = route;
        pooled.lastUsedMillis = clock.time();
        rcByQpn.put(qp.qpNum(), pooled);
        return pooled;
    }

    private void discardRc(final PooledQp rc)
    {
        rcByQpn.remove(rc.qp.qpNum());
        rcs.remove(rc);
        qpPool.remove(rc);
        rcCount.decrementAndGet();
        rc.qp.close();
    }

    /**
     * The peer did not take the request for an RC queue pair (the RC_CONNECT in this slot failed):
     * drop the end made for it (else it holds a place in the bounded pool for good) and leave the peer
     * on DC for a while, so that a peer that takes no messages is not asked again on every burst.
     */
    void onConnectFailed(final RequestSlot slot)
    {
        final NodeRoute route = slot.route;
        final PooledQp rc = rcByQpn.get(slot.staging.get(INT, CONNECT_QPN_OFFSET));
        if (rc != null && rc.peer == route && route.rc != rc)
        {
            discardRc(rc);
        }
        route.promoteNotBeforeMillis = clock.time() + PROMOTION_BACKOFF_STALLS * context.qpStallMs();
        route.promoting = false;
    }

    // ---------------------------------------------------------------------------------------------
    // answering (the poller delivers these)

    void onRcConnect(final long base, final int byteLen)
    {
        if (byteLen < LENGTH + CONNECT_LENGTH)
        {
            return;
        }
        final NodeRecord sender = control.readSender(base);
        if (sender == null)
        {
            return;
        }
        final int peerQpn = receiveBuffers.memory().get(INT, base + CONNECT_QPN_OFFSET);
        final NodeRoute route = routes.routeFor(sender);
        final PooledQp existing = route.rc;
        if (existing != null && rcOnly)
        {
            // without DC the peer has no other way to this node: it lost its end (or restarted), so ours goes
            retire(existing, true);
        }
        final PooledQp rc = route.rc == null ? createRc(route) : null;
        if (rc == null)
        {
            final RequestSlot slot = control.controlSlot(route, 0, TYPE_RC_REFUSE, 0, 0, RC_LENGTH);
            if (slot != null)
            {
                slot.staging.set(INT, RC_QPN_OFFSET, peerQpn);
                control.post(slot, RC_LENGTH);
            }
            return;
        }
        rc.qp.modify(QpAttributes.rtr(sender.address(), peerQpn));
        rc.qp.modify(QpAttributes.rts());
        rc.peerQpn = peerQpn;
        activate(route, rc);
        final RequestSlot slot = control.controlSlot(route, 0, TYPE_RC_ACCEPT, 0, 0, RC_LENGTH);
        if (slot != null)
        {
            slot.staging.set(INT, RC_QPN_OFFSET, rc.qp.qpNum());
            slot.staging.set(INT, SRC_VQPN_OFFSET, peerQpn);
            control.post(slot, RC_LENGTH);
        }
    }

    void onRcAccept(final long base, final int ourQpn)
    {
        final PooledQp rc = rcByQpn.get(ourQpn);
        if (rc == null)
        {
            return;
        }
        final int peerQpn = receiveBuffers.memory().get(INT, base + RC_QPN_OFFSET);
        synchronized (rc.peer)
        {
            if (rcByQpn.get(ourQpn) != rc)
            {
                // the handshake was given up meanwhile (RC-only: unanswered too long) and its queue pair closed
                return;
            }
            try
            {
                rc.qp.modify(QpAttributes.rtr(rc.peer.node.address(), peerQpn));
                rc.qp.modify(QpAttributes.rts());
                rc.peerQpn = peerQpn;
                activate(rc.peer, rc);
            }
            catch (final RuntimeException ex)
            {
                discardRc(rc);
            }
            if (rc.peer.pendingRc == rc)
            {
                rc.peer.pendingRc = null;
            }
            rc.peer.promoting = false;
        }
    }

    /** The peer has no room for an RC queue pair (or holds one with us still): stay on DC for a while. */
    void onRcRefuse(final long base)
    {
        final int ourQpn = receiveBuffers.memory().get(INT, base + RC_QPN_OFFSET);
        final PooledQp rc = rcByQpn.get(ourQpn);
        if (rc != null)
        {
            rc.peer.promoteNotBeforeMillis = clock.time() + (long)REFUSAL_BACKOFF_WINDOWS * context.rcPromoteWindowMs();
            rc.peer.promoting = false;
            discardRc(rc);
        }
    }

    private void activate(final NodeRoute route, final PooledQp rc)
    {
        rcWanted.remove(route.node.id());
        rc.lastUsedMillis = clock.time();
        rcs.add(rc);
        qpPool.add(rc);
        route.rc = rc;
    }

    /** The peer retires its end: stop posting here, drain, then close and say so. */
    void onRcClose(final long base)
    {
        final PooledQp rc = namedBySender(base);
        if (rc != null)
        {
            rc.answerClosed = true;
            rc.closeReady = true;
            retire(rc, false);
        }
    }

    /** The peer drained and closed its end: this end may close once its own requests are done. */
    void onRcClosed(final long base)
    {
        final PooledQp rc = namedBySender(base);
        if (rc != null)
        {
            rc.closeReady = true;
            pipeline.requestMaintenance();
        }
    }

    /**
     * @return the RC queue pair an RC_CLOSE or RC_CLOSED names: this end's, by its own number, and only
     * if its peer is the sender's queue pair (else the message is about one closed already).
     */
    private PooledQp namedBySender(final long base)
    {
        final MemorySegment memory = receiveBuffers.memory();
        final PooledQp rc = rcByQpn.get(memory.get(INT, base + RC_QPN_OFFSET));
        return rc != null && rc.peerQpn == memory.get(INT, base + RC_PEER_QPN_OFFSET) ? rc : null;
    }

    // ---------------------------------------------------------------------------------------------
    // retiring

    /**
     * Take an RC queue pair out of use gracefully: its route goes back to DC at once, but the queue
     * pair closes only when this end's requests on it have all completed and the peer closed (or
     * asked to close) its end, so no request that may have executed is ever flushed.
     */
    private void retire(final PooledQp rc, final boolean tellPeer)
    {
        if (rc.retired)
        {
            return;
        }
        if (rc.peer.rc == rc)
        {
            rc.peer.rc = null;
        }
        rc.retiredAtMillis = clock.time();
        rc.retired = true;
        if (tellPeer)
        {
            sendRcControl(rc, TYPE_RC_CLOSE);
        }
        pipeline.requestMaintenance();
    }

    private void sendRcControl(final PooledQp rc, final byte type)
    {
        final RequestSlot slot = control.controlSlot(rc.peer, 0, type, 0, 0, RC_CLOSE_LENGTH);
        if (slot == null)
        {
            control.later(() -> sendRcControl(rc, type));
            return;
        }
        slot.staging.set(INT, RC_QPN_OFFSET, rc.peerQpn);
        slot.staging.set(INT, RC_PEER_QPN_OFFSET, rc.qp.qpNum());
        control.post(slot, RC_CLOSE_LENGTH);
    }

    /**
     * A retired RC queue pair's turn (the submitter's, with nothing of its own outstanding on it):
     * close it when the peer is done with it too, or when the peer stayed silent too long.
     *
     * @return true when it was closed.
     */
    boolean closeIfDrained(final PooledQp rc, final long nowMillis)
    {
        if (rc.outstanding() != 0 || (!rc.closeReady && nowMillis - rc.retiredAtMillis < 10L * context.rcIdleMs()))
        {
            return false;
        }
        close(rc);
        return true;
    }

    /** A broken RC queue pair with nothing outstanding: close it now; the route stays on DC. */
    void dropRc(final PooledQp rc)
    {
        // the shared counter first, as the pool counts: seen recycled, the recycle is counted
        pipeline.counters().get(DriverCounter.QP_RECYCLES).increment();
        rcRecycles.incrementAndGet();
        retire(rc, true);
        close(rc);
    }

    private void close(final PooledQp rc)
    {
        rcByQpn.remove(rc.qp.qpNum());
        rcs.remove(rc);
        qpPool.remove(rc);
        rcCount.decrementAndGet();
        final SlotQueue deferred = rc.deferred;
        RequestSlot slot;
        while ((slot = deferred.poll()) != null)
        {
            pipeline.requeue(slot);
        }
        if (rc.answerClosed)
        {
            sendRcControl(rc, TYPE_RC_CLOSED);
        }
        rc.qp.close();
    }

    /**
     * Housekeeping's turn: ask again for the RC queue pairs connections forced, and retire those that
     * went idle.
     *
     * @return promotions begun and queue pairs retired.
     */
    int housekeeping(final long nowMillis)
    {
        int work = 0;
        if (!rcWanted.isEmpty())
        {
            for (final Long nodeId : rcWanted)
            {
                final NodeRoute route = routes.knownRoute(nodeId);
                if (route != null)
                {
                    expireHandshake(route, nowMillis);
                }
                if (route != null && route.rc == null && !route.promoting && nowMillis >= route.promoteNotBeforeMillis)
                {
                    promote(route);
                    work++;
                }
            }
        }
        final long idle = context.rcIdleMs();
        for (final PooledQp rc : rcs)
        {
            // the end that asked for the queue pair knows when it went idle; the other end sees only its
            // own requests (one-sided traffic to it is invisible), so it waits far longer before asking
            final long limit = rc.initiatedHere ? idle : 10L * idle;
            if (!rcOnly && !rc.retired && nowMillis - rc.lastUsedMillis > limit && rc.outstanding() == 0)
            {
                retire(rc, true);
                work++;
            }
            else if (rc.retired)
            {
                pipeline.requestMaintenance();
            }
        }
        return work;
    }

    /** @return RC queue pairs dropped after errors. */
    int recycles()
    {
        return rcRecycles.get();
    }

    /** @return RC queue pairs asked for since the driver started (promotions begun). */
    long promotions()
    {
        return rcPromotions.get();
    }

    /** @return RC queue pairs in use now. */
    int count()
    {
        return rcs.size();
    }
}

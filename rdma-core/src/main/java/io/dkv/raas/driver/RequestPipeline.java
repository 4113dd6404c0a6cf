package io.dkv.raas.driver;

import io.dkv.agent.Waits;
import io.dkv.raas.ControlHeader;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpType;
import io.dkv.verbs.SendWorkRequest;
import org.agrona.BitUtil;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.NanoClock;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The request pipeline of a driver: request slots, and {@link #submit}, the one entry for a request
 * of any kind, which stages a one-sided request's memory, counts it toward its peer's promotion to
 * RC, and hands it to a queue pair of the pool in doorbell batches. Completions come back through
 * the {@link CompletionPoller}; requests flushed by a broken queue pair come back here to go again.
 *
 * <p>Submission is lock-free for callers: a request goes into a many-producer queue and whichever
 * thread holds the submitter role (a caller, or the Worker agent) drains it into doorbell batches;
 * an uncontended caller posts directly. Only the submitter touches the batches, the deferred queues
 * and the pool's maintenance (recycling broken queue pairs, closing retired ones).
 */
final class RequestPipeline
{
    private final long nodeId;
    private final long timeoutMs;
    private final QpPool qpPool;
    private final DriverMillis clock;
    private final NanoClock nanoClock;
    private final RequestStaging staging;
    private final DriverCounters counters;
    private final RequestSlot[] slots;
    private final ManyToManyConcurrentArrayQueue<RequestSlot> freeSlots;
    private final ManyToOneConcurrentArrayQueue<RequestSlot> pending;
    private final AtomicBoolean submitting = new AtomicBoolean();
    private final AtomicInteger deferredCount = new AtomicInteger();
    private volatile boolean maintenance;
    private volatile boolean closed;
    /** Queue pairs with a doorbell batch being built by the submitter (an array: this is on every request's path). */
    private PooledQp[] toPost = new PooledQp[8];
    private int toPostCount;
    /** Set once by {@link #bind}: they need the pipeline to exist before they can. */
    private CompletionPoller completions;
    private RcPromotion promotion;

    RequestPipeline(
        final RaasContext context,
        final ProtectionDomain pd,
        final QpPool qpPool,
        final DriverMillis clock,
        final Registrations registrations,
        final SendBuffers sendBuffers,
        final DriverCounters counters,
        final long nodeId)
    {
        this.nodeId = nodeId;
        this.counters = counters;
        this.timeoutMs = context.timeoutMs();
        this.qpPool = qpPool;
        this.clock = clock;
        this.nanoClock = context.nanoClock();
        final int stagingBytes = BitUtil.align(Math.max(context.stagingBytes(), 256), 64);
        final MemoryRegion stagingRegion = pd.allocate((long)stagingBytes * context.requestSlots(), Access.LOCAL_WRITE);
        slots = new RequestSlot[context.requestSlots()];
        freeSlots = new ManyToManyConcurrentArrayQueue<>(BitUtil.findNextPositivePowerOfTwo(context.requestSlots()));
        for (int i = 0; i < slots.length; i++)
        {
            slots[i] = new RequestSlot(i, stagingRegion, (long)i * stagingBytes, stagingBytes);
            freeSlots.offer(slots[i]);
        }
        pending = new ManyToOneConcurrentArrayQueue<>(BitUtil.findNextPositivePowerOfTwo(context.requestSlots()));
        staging = new RequestStaging(this, pd, registrations, sendBuffers, context.copyThreshold());
    }

    /** Wire the completion side and the promotion of hot peers, which both need the pipeline first. */
    void bind(final CompletionPoller completions, final RcPromotion promotion)
    {
        this.completions = completions;
        this.promotion = promotion;
    }

    // ---------------------------------------------------------------------------------------------
    // request slots

    /**
     * A free slot, waiting for one while requests complete. A completion handler's first request takes the slot its
     * completion freed; a further one that waits here polls on (the polling role is its thread's already, and
     * {@link CompletionPoller} delivers completions to it again), as nobody else can free a slot for it.
     */
    RequestSlot acquireSlot()
    {
        RequestSlot slot = completions == null ? null : completions.takeHandoff();
        int spins = 0;
        while (slot == null && (slot = freeSlots.poll()) == null)
        {
            requireOpen();
            if (poll() == 0)
            {
                idle(++spins);
            }
        }
        slot.state = RequestSlot.PENDING;
        return slot;
    }

    /** @return a free slot, or null when none is: for requests the poller makes, which must not wait. */
    RequestSlot tryAcquireSlot()
    {
        final RequestSlot slot = freeSlots.poll();
        if (slot != null)
        {
            slot.state = RequestSlot.PENDING;
        }
        return slot;
    }

    void releaseSlot(final RequestSlot slot)
    {
        slot.clear();
        freeSlots.offer(slot);
    }

    /** @return the posted request a send completion's wr_id names, or null for one that is not (stale, forged). */
    RequestSlot postedSlot(final long wrId)
    {
        final int index = (int)wrId;
        if (index < 0 || index >= slots.length)
        {
            return null;
        }
        final RequestSlot slot = slots[index];
        return slot.state == RequestSlot.POSTED && slot.vqpn == (int)(wrId >>> 32) ? slot : null;
    }

    /** @return how many requests the pipeline holds at once. */
    int slotCount()
    {
        return slots.length;
    }

    /** @return true when every slot is free: nothing is in flight. */
    boolean isIdle()
    {
        return freeSlots.size() == slots.length;
    }

    // ---------------------------------------------------------------------------------------------
    // submission

    /**
     * The one entry for a request, described in its slot: a one-sided request is staged and counted
     * toward its peer's promotion; then the uncontended caller posts it itself, otherwise it joins the
     * queue and whoever holds the submitter role posts it, in order.
     */
    void submit(final RequestSlot slot)
    {
        counters.onRequest(slot.opcode);
        if (slot.kind == RequestSlot.KIND_ONE_SIDED)
        {
            staging.stage(slot);
            promotion.countRequest(slot.route, clock.time());
        }
        if (pending.isEmpty() && !needsMaintenance() && submitting.compareAndSet(false, true))
        {
            try
            {
                enqueueForPost(slot);
                postBatches();
            }
            finally
            {
                submitting.setRelease(false);
            }
            if (!pending.isEmpty())
            {
                drainSubmissions();
            }
            return;
        }
        int spins = 0;
        while (!pending.offer(slot))
        {
            drainSubmissions();
            if (poll() == 0)
            {
                idle(++spins);
            }
        }
        drainSubmissions();
    }

    /** A request that went by a {@link SyncLane} counts toward its peer's promotion and by its opcode, as others. */
    void countRequest(final NodeRoute route, final Opcode opcode)
    {
        counters.onRequest(opcode);
        promotion.countRequest(route, clock.time());
    }

    /** @return the driver's counters, which the parts sharing the pipeline count into. */
    DriverCounters counters()
    {
        return counters;
    }

    /**
     * Take the submitter role if free and post what waits.
     *
     * @return requests posted.
     */
    int drainSubmissions()
    {
        int posted = 0;
        while ((!pending.isEmpty() || needsMaintenance()) && submitting.compareAndSet(false, true))
        {
            final int before = posted;
            try
            {
                posted += retryDeferred();
                RequestSlot slot;
                while ((slot = pending.poll()) != null)
                {
                    enqueueForPost(slot);
                    posted++;
                }
                postBatches();
            }
            finally
            {
                submitting.setRelease(false);
            }
            if (posted == before)
            {
                // nothing could move: what waits needs completions first, and only a poll brings them
                break;
            }
        }
        return posted;
    }

    /** @return true when requests wait to be posted, which completions may let go now. */
    boolean hasWaiting()
    {
        return deferredCount.get() > 0 || !pending.isEmpty();
    }

    private boolean needsMaintenance()
    {
        return deferredCount.get() > 0 || maintenance;
    }

    /** A queue pair broke or retired: the submitter looks at the pool on its next turn. */
    void requestMaintenance()
    {
        maintenance = true;
    }

    /** Put a request flushed by a broken queue pair back in line, to go again on a recycled one. */
    void resubmit(final RequestSlot slot)
    {
        while (!pending.offer(slot))
        {
            Thread.onSpinWait();
        }
    }

    /** Put a deferred request back in line (its queue pair went away before posting it). */
    void requeue(final RequestSlot slot)
    {
        deferredCount.decrementAndGet();
        slot.postedOn = null;
        resubmit(slot);
    }

    private int retryDeferred()
    {
        if (!needsMaintenance())
        {
            return 0;
        }
        maintenance = false;
        int moved = 0;
        // from the end: a queue pair closed in this turn leaves the list (only the submitter removes)
        for (int i = qpPool.size() - 1; i >= 0; i--)
        {
            final PooledQp qp = qpPool.get(i);
            if (qp.retired)
            {
                RequestSlot waiting;
                while ((waiting = qp.deferred.poll()) != null)
                {
                    requeue(waiting);
                }
                if (!promotion.closeIfDrained(qp, clock.time()))
                {
                    maintenance = true;
                }
                continue;
            }
            if (qp.broken)
            {
                if (qp.outstanding() == 0 && !qpPool.recycle(qp))
                {
                    promotion.dropRc(qp);
                }
                if (qp.broken)
                {
                    maintenance = true;
                    continue;
                }
            }
            RequestSlot slot;
            while ((slot = qp.deferred.peek()) != null && qp.hasCredit(qp.batchCount))
            {
                qp.deferred.poll();
                deferredCount.decrementAndGet();
                addToBatch(qp, slot);
                moved++;
            }
        }
        return moved;
    }

    private void enqueueForPost(final RequestSlot slot)
    {
        if (slot.connection != null && slot.connection.isClosed() && slot.kind == RequestSlot.KIND_ONE_SIDED)
        {
            completions.complete(slot, RaasStatus.CLOSED, 0);
            return;
        }
        final PooledQp qp = chooseQp(slot);
        if (qp == null)
        {
            // a peer without DC whose RC queue pair is not there (yet, or any more): the request fails, and the
            // queue pair is asked for again for the requests after it
            completions.complete(slot, RaasStatus.UNREACHABLE, 0);
            return;
        }
        if (qp.broken || !qp.deferred.isEmpty() || !qp.hasCredit(qp.batchCount))
        {
            qp.deferred.add(slot);
            deferredCount.incrementAndGet();
            return;
        }
        addToBatch(qp, slot);
    }

    private PooledQp chooseQp(final RequestSlot slot)
    {
        if (slot.udQpn != 0)
        {
            return qpPool.ud();
        }
        final NodeRoute route = slot.route;
        final PooledQp rc = route.rc;
        if (route.dci == null)
        {
            return chooseWithoutDc(slot, route, rc);
        }
        if (slot.kind == RequestSlot.KIND_ONE_SIDED && slot.connection != null && slot.connection.isBulk())
        {
            return route.bulkDci;
        }
        if (rc != null && !rc.broken && slot.kind != RequestSlot.KIND_CONTROL)
        {
            return rc;
        }
        return route.dci;
    }

    /**
     * A peer reached without DC (RC-only): what sets up or closes its RC queue pair goes as a datagram to the
     * peer's datagram queue pair (the number its record carries), other control messages too while no RC queue pair
     * holds; everything else takes the RC queue pair, or fails when there is none.
     */
    private PooledQp chooseWithoutDc(final RequestSlot slot, final NodeRoute route, final PooledQp rc)
    {
        final boolean usable = rc != null && !rc.broken;
        if (slot.kind == RequestSlot.KIND_CONTROL && (!usable || isRcControl(slot)))
        {
            slot.udQpn = route.node.dctNumber();
            return qpPool.ud();
        }
        if (usable)
        {
            return rc;
        }
        promotion.wantLater(route);
        return null;
    }

    /** @return whether a control message sets up or closes an RC queue pair: it never goes over one. */
    private static boolean isRcControl(final RequestSlot slot)
    {
        final byte type = slot.staging.get(JAVA_BYTE, ControlHeader.TYPE_OFFSET);
        return type == ControlHeader.TYPE_RC_CONNECT || type == ControlHeader.TYPE_RC_ACCEPT ||
            type == ControlHeader.TYPE_RC_REFUSE || type == ControlHeader.TYPE_RC_CLOSE ||
            type == ControlHeader.TYPE_RC_CLOSED;
    }

    private void addToBatch(final PooledQp qp, final RequestSlot slot)
    {
        if (qp.type == QpType.RC)
        {
            slot.wr.dc(null, 0, 0);
        }
        else if (qp.type == QpType.UD)
        {
            slot.wr.ud(slot.route.ah, slot.udQpn, ControlHeader.UD_QKEY);
        }
        else
        {
            slot.targetRoute();
        }
        slot.wr.next(null);
        if (qp.batchCount == 0)
        {
            qp.batchHead = slot.wr;
            if (toPostCount == toPost.length)
            {
                toPost = Arrays.copyOf(toPost, toPostCount * 2);
            }
            toPost[toPostCount++] = qp;
        }
        else
        {
            qp.batchTail.next(slot.wr);
        }
        qp.batchTail = slot.wr;
        qp.batchCount++;
        slot.postedOn = qp;
        slot.state = RequestSlot.POSTED;
    }

    /** Ring each queue pair's doorbell once for its whole batch. */
    private void postBatches()
    {
        final long now = clock.time();
        for (int i = 0, n = toPostCount; i < n; i++)
        {
            final PooledQp qp = toPost[i];
            toPost[i] = null;
            final int count = qp.batchCount;
            final SendWorkRequest head = qp.batchHead;
            qp.batchHead = null;
            qp.batchTail = null;
            qp.batchCount = 0;
            qp.addPosted(count);
            qp.lastUsedMillis = now;
            try
            {
                qp.qp.postSend(head);
            }
            catch (final RuntimeException ex)
            {
                // the queue pair refused the batch (it is being closed): the requests fail, the pool recycles it
                qp.broken = true;
                for (SendWorkRequest wr = head; wr != null; wr = wr.next())
                {
                    qp.unpost();
                    completions.complete(slots[(int)wr.wrId()], RaasStatus.UNREACHABLE, 0);
                }
            }
        }
        toPostCount = 0;
    }

    // ---------------------------------------------------------------------------------------------
    // waiting

    /** @return the clock of the deadlines callers wait to: the context's, for the parts that share the pipeline. */
    NanoClock nanoClock()
    {
        return nanoClock;
    }

    /** Deliver what completed (see {@link CompletionPoller#poll}): what a waiting caller does meanwhile. */
    int poll()
    {
        return completions.poll();
    }

    /**
     * Wait for a synchronous request, polling meanwhile; the slot stays the caller's. A READ's result
     * is copied into the caller's memory here, by the caller's thread.
     *
     * @return its status.
     * @throws RaasException on timeout: the request is abandoned, and its slot is released when it
     *                       completes.
     */
    int awaitStatus(final RequestSlot slot)
    {
        final long deadline = nanoClock.nanoTime() + timeoutMs * 1_000_000L;
        int spins = 0;
        while (!slot.isDone())
        {
            if (poll() == 0 && drainSubmissions() == 0)
            {
                idle(++spins);
                if ((spins & 1023) == 0 && nanoClock.nanoTime() > deadline && slot.abandon())
                {
                    throw new RaasException("request to node " + (slot.route == null ? "?" : slot.route.node.id()) +
                        " did not complete within " + timeoutMs + " ms");
                }
            }
        }
        final int status = slot.status;
        if (status == RaasStatus.SUCCESS && slot.copyBack != null)
        {
            try
            {
                completions.copyBackToCaller(slot);
            }
            catch (final RuntimeException ex)
            {
                // the caller's memory went away while it waited: the slot is done, and nobody else releases it
                releaseSlot(slot);
                throw ex;
            }
        }
        return status;
    }

    /**
     * Back off while waiting ({@link Waits}): spin a little, yield, then park, so that on two cores the thread that has
     * the work (a NIC engine, a peer, a memory node writing to disk) runs. Waiting only by spinning and yielding, the
     * standalone driver's virtual threads (a client's send or receive each) took both cores for seconds while their
     * peers starved, under twelve clients' threads writing under durability sync.
     */
    static void idle(final int spins)
    {
        Waits.idle(spins);
    }

    // ---------------------------------------------------------------------------------------------
    // lifecycle

    /** The driver is closing: no more requests, and errors of the closing device are expected. */
    void markClosed()
    {
        closed = true;
    }

    boolean isClosed()
    {
        return closed;
    }

    void requireOpen()
    {
        if (closed)
        {
            throw new RaasException("RaaS driver of node " + nodeId + " is closed");
        }
    }

    /** What the pipeline holds and waits on now, for {@link RaasDriver#describeState}. */
    void describe(final StringBuilder text)
    {
        text.append("pending ").append(pending.size())
            .append(", deferred ").append(deferredCount.get())
            .append(", free slots ").append(freeSlots.size()).append(" of ").append(slots.length)
            .append(", submitting ").append(submitting.get())
            .append(", polling ").append(completions.isPolling())
            .append(", maintenance ").append(maintenance);
    }
}

package io.dkv.raas.driver;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.ConnectionCredits;
import io.dkv.raas.OneSidedOperation;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * A logical connection of the embedded driver. It is small (its vQPN, its route, its credits and
 * handler); messaging state is added only when the connection carries messages.
 */
final class DriverConnection implements Connection
{
    private static final VarHandle CLOSED;
    /**
     * A thread that owns no memory, never started: memory it may access is not confined to a thread, which an
     * asynchronous READ's result needs, as any thread may deliver it.
     */
    private static final Thread NOT_THE_OWNER = Thread.ofPlatform().unstarted(() ->
    {
    });

    static
    {
        try
        {
            CLOSED = MethodHandles.lookup().findVarHandle(DriverConnection.class, "closed", boolean.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ConnectionTable table;
    private final RequestPipeline pipeline;
    private final RegionTable regions;
    private final SyncLanes lanes;
    private final int vqpn;
    private final CompletionHandler handler;
    private final ConnectionCredits credits = new ConnectionCredits();
    private volatile boolean bulk;
    private volatile NodeRoute route;
    /** The region of the last request, known to be owned: repeated requests skip the lookup. */
    private RemoteRegion lastOwned;
    private volatile boolean closed;
    private volatile MessageChannel channel;
    /** What admission counts of a connection a peer opened to a listener here; null for one opened here. */
    private ConnectAdmission.Inbound inbound;

    DriverConnection(
        final ConnectionTable table,
        final RequestPipeline pipeline,
        final RegionTable regions,
        final SyncLanes lanes,
        final int vqpn,
        final NodeRoute route,
        final CompletionHandler handler)
    {
        this.table = table;
        this.pipeline = pipeline;
        this.regions = regions;
        this.lanes = lanes;
        this.vqpn = vqpn;
        this.route = route;
        this.handler = handler;
    }

    public int vqpn()
    {
        return vqpn;
    }

    public long nodeId()
    {
        return route.node.id();
    }

    NodeRoute route()
    {
        final NodeRoute current = route;
        if (current.stale)
        {
            try
            {
                route = table.currentRoute(current.node.id());
            }
            catch (final RaasException gone)
            {
                return current;
            }
        }
        return route;
    }

    /** The connection carries messages from now on (connect, or a peer's CONNECT accepted). */
    void attach(final MessageChannel channel)
    {
        this.channel = channel;
    }

    /** @return its messaging state, or null for a connection that carries no messages. */
    MessageChannel channel()
    {
        return channel;
    }

    /** A peer opened the connection to a listener here: what admission counts of it, given back on close. */
    void admittedAs(final ConnectAdmission.Inbound inbound)
    {
        this.inbound = inbound;
    }

    ConnectAdmission.Inbound inbound()
    {
        return inbound;
    }

    public boolean isMessaging()
    {
        final MessageChannel channel = this.channel;
        return channel != null && channel.isEstablished();
    }

    boolean isClosed()
    {
        return closed;
    }

    public int outstanding()
    {
        return credits.outstanding();
    }

    // ---- one-sided ----

    public long oneSided(
        final OneSidedOperation operation, final RemoteRegion region, final long offset, final MemorySegment local,
        final long localOffset, final int length, final long compareAdd, final long swap)
    {
        final Opcode opcode = operation.opcode();
        refuseUnlessAllowed(opcode, region, offset, length, local, localOffset);
        // a request of this connection still in flight keeps its order only behind it on the shared path
        if (length <= lanes.stagingBytes() && credits.outstanding() == 0)
        {
            final SyncLane lane = lanes.forCurrentThread();
            if (lane != null)
            {
                return onLane(lane, opcode, region, offset, local, localOffset, length, compareAdd, swap);
            }
        }
        final RequestSlot slot = pipeline.acquireSlot().oneSided(this, opcode, region, offset, length);
        pipeline.submit(slot.localMemory(local, localOffset).operands(compareAdd, swap).awaited());
        return awaitSync(slot, region, offset, length);
    }

    public boolean tryReadPair(
        final RemoteRegion region, final long firstOffset, final long secondOffset, final MemorySegment dst,
        final long dstOffset, final int length)
    {
        if (2L * length > lanes.stagingBytes() || credits.outstanding() != 0)
        {
            return false;
        }
        final SyncLane lane = lanes.forCurrentThread();
        if (lane == null)
        {
            return false;
        }
        refuseUnlessAllowed(Opcode.RDMA_READ, region, firstOffset, length, dst, dstOffset);
        refuseUnlessAllowed(Opcode.RDMA_READ, region, secondOffset, length, dst, dstOffset + length);
        final NodeRoute route = route();
        pipeline.countRequest(route, Opcode.RDMA_READ);
        pipeline.countRequest(route, Opcode.RDMA_READ);
        final int status;
        try
        {
            status = lane.executePair(route, vqpn, region.address() + firstOffset, region.address() + secondOffset,
                region.rkey(), dst, dstOffset, length);
        }
        catch (final RuntimeException ex)
        {
            pipeline.requireOpen();
            throw ex;
        }
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(describe("READ pair", region, firstOffset, length) + " and at offset " +
                secondOffset + " failed: " + RaasStatus.describe(status));
        }
        return true;
    }

    /** A synchronous request the calling thread carries on its own lane; checked already. */
    private long onLane(
        final SyncLane lane, final Opcode opcode, final RemoteRegion region, final long offset,
        final MemorySegment local, final long localOffset, final int length, final long compareAdd, final long swap)
    {
        final NodeRoute route = route();
        pipeline.countRequest(route, opcode);
        final int status;
        try
        {
            status = lane.execute(route, vqpn, opcode, region.address() + offset, region.rkey(), local, localOffset,
                length, compareAdd, swap);
        }
        catch (final RuntimeException ex)
        {
            pipeline.requireOpen();
            throw ex;
        }
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(
                describe(opcode.name(), region, offset, length) + " failed: " + RaasStatus.describe(status));
        }
        return opcode.isAtomic() ? lane.value() : length;
    }

    public void oneSidedAsync(
        final OneSidedOperation operation, final RemoteRegion region, final long offset, final MemorySegment local,
        final long localOffset, final int length, final long compareAdd, final long swap, final long token)
    {
        final Opcode opcode = operation.opcode();
        refuseUnlessAllowed(opcode, region, offset, length, local, localOffset);
        if (opcode == Opcode.RDMA_READ && local != null && !local.isAccessibleBy(NOT_THE_OWNER))
        {
            // nobody waits for an asynchronous READ: whichever thread polls its completion (the Poller agent, another
            // caller) copies its result into this memory, which only its owner may write
            throw new RaasException(describe(opcode.name(), region, offset, length) +
                " refused: its local buffer is confined to thread " + Thread.currentThread().getName() +
                "; an asynchronous READ needs memory any thread may write (a shared, global or automatic arena)");
        }
        final RequestSlot slot = asyncSlot(opcode, region, offset, length, token);
        pipeline.submit(slot.localMemory(local, localOffset).operands(compareAdd, swap));
    }

    /**
     * An asynchronous request whose local buffer is already registered memory (a standalone
     * driver's client data area): no copy, no lookup.
     */
    void submitRegistered(
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final MemoryRegion localRegion,
        final long localOffset,
        final int length,
        final long compareAdd,
        final long swap,
        final long token)
    {
        refuseUnlessAllowed(opcode, region, offset, length, null, 0);
        final RequestSlot slot =
            asyncSlot(opcode, region, offset, length, token).registeredMemory(localRegion, localOffset);
        pipeline.submit(opcode.isAtomic() ? slot.operands(compareAdd, swap) : slot);
    }

    public void flush()
    {
        pipeline.drainSubmissions();
    }

    /**
     * Wait for a synchronous request; its description is built only if it fails.
     */
    private long awaitSync(final RequestSlot slot, final RemoteRegion region, final long offset, final int length)
    {
        final Opcode opcode = slot.opcode;
        final int status = pipeline.awaitStatus(slot);
        final long value = slot.value;
        pipeline.releaseSlot(slot);
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(
                describe(opcode.name(), region, offset, length) + " failed: " + RaasStatus.describe(status));
        }
        return value;
    }

    private String describe(final String operation, final RemoteRegion region, final long offset, final int length)
    {
        return String.format("%s of %d bytes at offset %d of region '%s' on node %d (vQPN 0x%x)",
            operation, length, offset, region.name(), region.nodeId(), vqpn);
    }

    /**
     * The checks a one-sided request passes before it takes a slot: the connection is open, the region
     * is one this driver's users may name, on this connection's node, and the local buffer has the bytes.
     *
     * @throws RaasException saying why the request is refused.
     */
    private void refuseUnlessAllowed(
        final Opcode opcode,
        final RemoteRegion region,
        final long offset,
        final int length,
        final MemorySegment local,
        final long localOffset)
    {
        if (closed)
        {
            throw new RaasException(String.format("connection vQPN 0x%x is closed", vqpn));
        }
        final int verdict =
            regions.check(region, offset, length, Access.requiredFor(opcode), opcode.isAtomic(), region == lastOwned);
        if (verdict != RaasStatus.SUCCESS)
        {
            throw new RaasException(
                describe(opcode.name(), region, offset, length) + " refused: " + RaasStatus.describe(verdict));
        }
        if (region.nodeId() != route.node.id())
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) +
                " refused: the connection goes to node " + route.node.id());
        }
        // a region of an earlier incarnation of the node: its rkey and address may name memory of the new one (a
        // software device numbers its keys alike each time it starts), so it is refused before it is sent there
        long nodeEpoch = route().node.epoch();
        if (region.nodeEpoch() != 0 && nodeEpoch != 0 && region.nodeEpoch() > nodeEpoch)
        {
            // a region of a later incarnation than the route knows (looked up after the node restarted, before a
            // request on the route failed): the route is what is out of date, so the node's record is read anew
            table.markStale(route);
            nodeEpoch = route().node.epoch();
        }
        if (region.nodeEpoch() != 0 && nodeEpoch != 0 && region.nodeEpoch() != nodeEpoch)
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: the region is of " +
                "incarnation " + region.nodeEpoch() + " of node " + region.nodeId() + ", which is now at incarnation " +
                nodeEpoch + " (look the region up again)");
        }
        if (local != null && (localOffset < 0 || localOffset > local.byteSize() - length))
        {
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: local buffer of " +
                local.byteSize() + " bytes has no " + length + " bytes at offset " + localOffset);
        }
        if (local != null && !local.isAccessibleBy(Thread.currentThread()))
        {
            // the request would reach the NIC, and its result land where the caller's thread may not write: refused
            // here rather than lost when its completion is delivered
            throw new RaasException(describe(opcode.name(), region, offset, length) + " refused: its local buffer is " +
                "confined to a thread other than " + Thread.currentThread().getName());
        }
        lastOwned = region;
    }

    /** A slot for an asynchronous request, once the connection has a credit for it. */
    private RequestSlot asyncSlot(
        final Opcode opcode, final RemoteRegion region, final long offset, final int length, final long token)
    {
        acquireCredit();
        return pipeline.acquireSlot().oneSided(this, opcode, region, offset, length).notifying(token, handler);
    }

    private void acquireCredit()
    {
        final int limit = table.connectionCredits();
        if (credits.tryAcquire(limit))
        {
            return;
        }
        // counted once a wait, however long: how often callers outrun their credits, not how long they spin
        pipeline.counters().get(DriverCounter.CREDIT_WAITS).increment();
        int spins = 0;
        while (!credits.tryAcquire(limit))
        {
            if (pipeline.poll() == 0)
            {
                RequestPipeline.idle(++spins);
            }
            if (closed)
            {
                throw new RaasException(String.format("connection vQPN 0x%x is closed", vqpn));
            }
            // a closing driver fails what waits, as acquireSlot does: its agents are joined, this one among them
            pipeline.requireOpen();
        }
    }

    void onCompleted()
    {
        credits.release();
    }

    // ---- two-sided ----

    private MessageChannel requireChannel()
    {
        final MessageChannel channel = this.channel;
        if (channel == null || !channel.isEstablished())
        {
            throw new RaasException(String.format(
                "connection vQPN 0x%x to node %d carries no messages (open it with connect)", vqpn, nodeId()));
        }
        return channel;
    }

    public void send(final MemorySegment src, final long offset, final int length, final int flags)
    {
        requireChannel().send(src, offset, length, flags);
    }

    /**
     * A bulk application's connection (a standalone driver isolating its clients): its one-sided requests take
     * the route's bulk DC initiator, never the one latency applications' requests take, nor the RC queue pair.
     */
    void markBulk()
    {
        bulk = true;
    }

    boolean isBulk()
    {
        return bulk;
    }

    public boolean trySend(final MemorySegment src, final long offset, final int length)
    {
        return requireChannel().trySend(src, offset, length);
    }

    public boolean offer(final MemorySegment src, final long offset, final int length)
    {
        return requireChannel().offer(src, offset, length);
    }

    public int recv(final MemorySegment dst, final long offset, final int maxLength, final Duration timeout)
    {
        return requireChannel().recv(dst, offset, maxLength, timeout);
    }

    public boolean isReadable()
    {
        final MessageChannel channel = this.channel;
        return closed || (channel != null && channel.isReadable());
    }

    public ReceivedMessage recvZeroCopy(final Duration timeout)
    {
        return requireChannel().recvZeroCopy(timeout);
    }

    /** Close: by the application, or by the driver reclaiming an unused inbound connection (either may come first). */
    public void close()
    {
        close(true);
    }

    /** @param tellPeer whether the peer hears of it (a CLOSE): not when a flood's connection makes room. */
    void close(final boolean tellPeer)
    {
        if (!CLOSED.compareAndSet(this, false, true))
        {
            return;
        }
        final MessageChannel channel = this.channel;
        if (channel != null)
        {
            channel.close(tellPeer);
        }
        releaseAll();
    }

    void closeQuietly()
    {
        if (CLOSED.compareAndSet(this, false, true))
        {
            releaseAll();
        }
    }

    private void releaseAll()
    {
        table.release(this);
    }

    public String toString()
    {
        return String.format("connection{vqpn=0x%x, node=%d}", vqpn, nodeId());
    }
}

package io.dkv.raas.driver;

import io.dkv.raas.ControlHeader;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpAttributes;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.RecvWorkRequest;
import io.dkv.verbs.SendFlags;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.dkv.raas.ControlHeader.*;

/**
 * The two-sided half of the driver: the receive buffers of the shared receive queue (one SRQ for
 * every connection and queue pair of the driver), control messages (connect, accept, credits,
 * close, RC promotion, remote malloc), listeners, and the RC queue pairs to hot peers.
 */
final class Messaging
{
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    /** After a promotion the peer did not answer, it stays on DC this many stall periods. */
    static final int PROMOTION_BACKOFF_STALLS = 10;
    /** After a peer refused a promotion (no room in its pool, or an RC queue pair with us still closing), this many windows. */
    static final int REFUSAL_BACKOFF_WINDOWS = 10;

    final RaasDriver driver;
    final MemoryRegion receive;
    final int bufferBytes;
    private final RecvWorkRequest repostWr = new RecvWorkRequest(1);
    private final Int2ObjectHashMap<DriverListener> listeners = new Int2ObjectHashMap<>();
    final MemoryRegion sendPool;
    final int sendBufferBytes;
    private final ManyToManyConcurrentArrayQueue<SendBuffer> freeSendBuffers;
    private final SendBuffer[] sendBuffers;
    private final ConcurrentLinkedQueue<Runnable> backlog = new ConcurrentLinkedQueue<>();
    private final Long2ObjectHashMap<MallocWait> mallocs = new Long2ObjectHashMap<>();
    private final AtomicLong nextToken = new AtomicLong(1);
    private final AtomicInteger rcCount = new AtomicInteger();
    private final CopyOnWriteArrayList<PooledQp> rcs = new CopyOnWriteArrayList<>();
    private final Map<Integer, PooledQp> rcByQpn = new ConcurrentHashMap<>();
    private final AtomicInteger rcRecycles = new AtomicInteger();
    private final AtomicLong rcPromotions = new AtomicLong();
    /**
     * Nodes a connection forced to RC ({@link Flags#FORCE_RC}) whose RC queue pair has not held yet:
     * asked again on each housekeeping turn the back-off allows, so that one refusal or one message
     * short of a slot at connect does not leave the connection on DC for good.
     */
    private final Set<Long> rcWanted = ConcurrentHashMap.newKeySet();
    final ConnectAdmission admission;
    /** Admission's answer to the CONNECT being delivered: only the thread delivering completions uses it. */
    private final ConnectAdmission.Decision decision = new ConnectAdmission.Decision();

    /** A registered buffer messages are copied into before they are sent. */
    static final class SendBuffer
    {
        final int index;
        final long offset;

        SendBuffer(final int index, final long offset)
        {
            this.index = index;
            this.offset = offset;
        }
    }

    /** Bytes this node allocated for peers that asked: bounded by the context's remoteMallocBytes. */
    private final AtomicLong remoteMallocBytes = new AtomicLong();

    private static final class MallocWait
    {
        volatile boolean done;
        int status;
        long address;
        int rkey;
        long length;
        long epoch;
        int access;
    }

    Messaging(final RaasDriver driver)
    {
        this.driver = driver;
        this.admission = new ConnectAdmission(driver.context, driver.device.attributes().maxMr());
        final int buffers = driver.context.receiveBuffers();
        this.bufferBytes = driver.context.receiveBufferBytes();
        this.receive = driver.pd.allocate((long)buffers * bufferBytes, Access.LOCAL_WRITE);
        for (int i = 0; i < buffers; i++)
        {
            repost(i);
        }
        final int sendCount = 64;
        this.sendBufferBytes = Math.max(bufferBytes, driver.context.copyThreshold() + LENGTH);
        this.sendPool = driver.pd.allocate((long)sendCount * sendBufferBytes, Access.LOCAL_WRITE);
        this.freeSendBuffers = new ManyToManyConcurrentArrayQueue<>(sendCount);
        this.sendBuffers = new SendBuffer[sendCount];
        for (int i = 0; i < sendCount; i++)
        {
            sendBuffers[i] = new SendBuffer(i, (long)i * sendBufferBytes);
            freeSendBuffers.offer(sendBuffers[i]);
        }
    }

    /** Give a receive buffer back to the shared receive queue. */
    void repost(final int buffer)
    {
        synchronized (repostWr)
        {
            repostWr.wrId(buffer).local(receive, (long)buffer * bufferBytes, bufferBytes);
            try
            {
                driver.srq.postRecv(repostWr);
            }
            catch (final RuntimeException ex)
            {
                if (!driver.isClosed())
                {
                    throw ex;
                }
            }
        }
    }

    long bufferOffset(final int buffer)
    {
        return (long)buffer * bufferBytes;
    }

    SendBuffer acquireSendBuffer()
    {
        SendBuffer buffer;
        int spins = 0;
        while ((buffer = freeSendBuffers.poll()) == null)
        {
            if (driver.poll() == 0)
            {
                RaasDriver.idle(++spins);
            }
        }
        return buffer;
    }

    void releaseSendBuffer(final int index)
    {
        freeSendBuffers.offer(sendBuffers[index]);
    }

    /** A message request completed: give back the buffer it was sent from. */
    void onSent(final RequestSlot slot, final int status)
    {
        if (slot.kind == RequestSlot.KIND_READ_IN && slot.connection != null && slot.connection.channel != null)
        {
            slot.connection.channel.onReadIn(slot, status);
            return;
        }
        if (slot.sendBuffer >= 0)
        {
            releaseSendBuffer(slot.sendBuffer);
            slot.sendBuffer = -1;
        }
        if (status != RaasStatus.SUCCESS && slot.connection != null && slot.connection.channel != null)
        {
            slot.connection.channel.onSendFailed(status);
        }
        if (status != RaasStatus.SUCCESS && slot.kind == RequestSlot.KIND_CONTROL &&
            slot.staging.get(BYTE, TYPE_OFFSET) == TYPE_RC_CONNECT)
        {
            onPromotionFailed(slot.route, slot.staging.get(INT, CONNECT_QPN_OFFSET));
        }
    }

    /**
     * The peer did not take the request for an RC queue pair: drop the end made for it (else it
     * holds a place in the bounded pool for good) and leave the peer on DC for a while, so that a
     * peer that takes no messages is not asked again on every burst.
     */
    private void onPromotionFailed(final NodeRoute route, final int ourQpn)
    {
        final PooledQp rc = rcByQpn.get(ourQpn);
        if (rc != null && rc.peer == route && route.rc != rc)
        {
            discardRc(rc);
        }
        route.promoteNotBeforeMillis = driver.clockMillis() + PROMOTION_BACKOFF_STALLS * driver.context.qpStallMs();
        route.promoting = false;
    }

    // ---------------------------------------------------------------------------------------------
    // sending control messages

    /**
     * A slot with a control header already written into its staging memory, or null when none is
     * free (the caller then leaves the message to the backlog).
     */
    RequestSlot controlSlot(final NodeRoute route, final int imm, final byte type, final int srcVqpn, final int credits, final int length)
    {
        final RequestSlot slot = driver.freeSlots.poll();
        if (slot == null)
        {
            return null;
        }
        slot.state = RequestSlot.PENDING;
        slot.kind = RequestSlot.KIND_CONTROL;
        slot.route = route;
        slot.vqpn = 0;
        slot.opcode = Opcode.SEND_WITH_IMM;
        final MemorySegment staging = slot.staging;
        staging.set(BYTE, TYPE_OFFSET, type);
        staging.set(BYTE, FLAGS_OFFSET, (byte)0);
        staging.set(INT, SRC_VQPN_OFFSET, srcVqpn);
        staging.set(INT, CREDITS_OFFSET, credits);
        staging.set(INT, LENGTH_OFFSET, length);
        slot.wr.reset().wrId(slot.wrId()).opcode(Opcode.SEND_WITH_IMM).immData(imm).sendFlags(SendFlags.SIGNALED);
        return slot;
    }

    void postControl(final RequestSlot slot, final int payloadBytes)
    {
        slot.wr.local(driver.staging, slot.stagingOffset, LENGTH + payloadBytes);
        driver.submit(slot);
    }

    /** Send a header-only control message now if a slot is free, else soon. */
    void sendSimple(final NodeRoute route, final int imm, final byte type, final int srcVqpn, final int credits, final int length)
    {
        final RequestSlot slot = controlSlot(route, imm, type, srcVqpn, credits, length);
        if (slot == null)
        {
            backlog.add(() -> sendSimple(route, imm, type, srcVqpn, credits, length));
            return;
        }
        postControl(slot, 0);
    }

    private void writeSelf(final MemorySegment staging, final int service)
    {
        final NodeRecord self = driver.self;
        staging.set(INT, CONNECT_SERVICE_OFFSET, service);
        staging.set(INT, CONNECT_ROLE_OFFSET, self.role());
        staging.set(LONG, CONNECT_NODE_ID_OFFSET, self.id());
        staging.set(LONG, CONNECT_DC_KEY_OFFSET, self.dcKey());
        staging.set(LONG, CONNECT_EPOCH_OFFSET, self.epoch());
        staging.set(INT, CONNECT_DCT_OFFSET, self.dctNumber());
        final byte[] address = self.address().bytes();
        staging.set(INT, CONNECT_ADDRESS_LENGTH_OFFSET, address.length);
        MemorySegment.copy(MemorySegment.ofArray(address), 0, staging, CONNECT_ADDRESS_OFFSET, address.length);
    }

    /** The sender's record, from a CONNECT or RC_CONNECT in a receive buffer. */
    private NodeRecord readSender(final long base)
    {
        final MemorySegment memory = receive.segment();
        final int addressLength = memory.get(INT, base + CONNECT_ADDRESS_LENGTH_OFFSET);
        if (addressLength <= 0 || addressLength > CONNECT_MAX_ADDRESS)
        {
            return null;
        }
        final byte[] address = new byte[addressLength];
        MemorySegment.copy(memory, BYTE, base + CONNECT_ADDRESS_OFFSET, address, 0, addressLength);
        try
        {
            return new NodeRecord(
                memory.get(LONG, base + CONNECT_NODE_ID_OFFSET),
                memory.get(INT, base + CONNECT_ROLE_OFFSET),
                PortAddress.of(driver.device.provider(), address),
                memory.get(INT, base + CONNECT_DCT_OFFSET),
                memory.get(LONG, base + CONNECT_DC_KEY_OFFSET),
                memory.get(LONG, base + CONNECT_EPOCH_OFFSET),
                0);
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }

    /** The route to a node that reached us, from what it sent about itself. */
    private NodeRoute routeTo(final NodeRecord sender)
    {
        return driver.routeFor(sender);
    }

    // ---------------------------------------------------------------------------------------------
    // connecting and listening

    Listener listen(final int service)
    {
        if (service <= 0)
        {
            throw new RaasException("service numbers start at 1, got " + service);
        }
        synchronized (listeners)
        {
            if (listeners.containsKey(service))
            {
                throw new RaasException("service " + service + " already has a listener on node " + driver.self.id());
            }
            final DriverListener listener = new DriverListener(this, service);
            listeners.put(service, listener);
            return listener;
        }
    }

    void removeListener(final DriverListener listener)
    {
        synchronized (listeners)
        {
            listeners.remove(listener.service(), listener);
        }
    }

    void connect(final DriverConnection connection, final int service, final int flags)
    {
        if (service <= 0)
        {
            throw new RaasException("service numbers start at 1, got " + service);
        }
        final MessageChannel channel = new MessageChannel(this, connection, flags, null);
        connection.channel = channel;
        final NodeRoute route = connection.route();
        if ((flags & Flags.FORCE_RC) != 0)
        {
            rcWanted.add(route.node.id());
            promote(route);
        }
        RequestSlot slot;
        int spins = 0;
        while ((slot = controlSlot(route, 0, TYPE_CONNECT, connection.vqpn(), channel.grantedCredits(), CONNECT_LENGTH)) == null)
        {
            if (driver.poll() == 0)
            {
                RaasDriver.idle(++spins);
            }
        }
        // the connection hears of a CONNECT that could not be delivered, so the connect fails at once
        slot.connection = connection;
        writeSelf(slot.staging, service);
        channel.writeAdvert(slot.staging, CONNECT_ADVERT_ADDRESS_OFFSET, CONNECT_ADVERT_RKEY_OFFSET, CONNECT_ADVERT_BYTES_OFFSET);
        slot.staging.set(INT, CONNECT_QPN_OFFSET, driver.ud.qp.qpNum());
        postControl(slot, CONNECT_LENGTH);
        channel.awaitEstablished(Duration.ofMillis(driver.context.timeoutMs()), service);
    }

    // ---------------------------------------------------------------------------------------------
    // receiving

    /** A receive completion from the shared receive queue. Called by the poller. */
    void onReceive(final WorkCompletion wc)
    {
        final int buffer = (int)wc.wrId();
        if (wc.status() != WcStatus.SUCCESS)
        {
            if (wc.status() != WcStatus.WR_FLUSH_ERR)
            {
                repost(buffer);
            }
            return;
        }
        final int imm = wc.immData();
        if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM)
        {
            repost(buffer);
            final DriverConnection connection = driver.connection(imm);
            if (connection != null && connection.channel != null)
            {
                connection.channel.onWritten(wc.byteLen());
            }
            return;
        }
        final long base = bufferOffset(buffer);
        final MemorySegment memory = receive.segment();
        if (wc.byteLen() < LENGTH)
        {
            repost(buffer);
            return;
        }
        final byte type = memory.get(BYTE, base + TYPE_OFFSET);
        final int srcVqpn = memory.get(INT, base + SRC_VQPN_OFFSET);
        final int credits = memory.get(INT, base + CREDITS_OFFSET);
        final int length = memory.get(INT, base + LENGTH_OFFSET);
        if (imm == 0)
        {
            try
            {
                onDriverMessage(type, base, srcVqpn, credits, length, wc.byteLen());
            }
            finally
            {
                repost(buffer);
            }
            return;
        }
        final DriverConnection connection = driver.connection(imm);
        final MessageChannel channel = connection == null ? null : connection.channel;
        if (channel == null)
        {
            repost(buffer);
            return;
        }
        if (type == TYPE_DATA)
        {
            if (length < 0 || length > wc.byteLen() - LENGTH)
            {
                repost(buffer);
                return;
            }
            channel.onData(buffer, length);
            return;
        }
        try
        {
            channel.onControl(type, base, srcVqpn, credits, length, wc.byteLen());
        }
        finally
        {
            repost(buffer);
        }
    }

    private void onDriverMessage(final byte type, final long base, final int srcVqpn, final int credits, final int length, final int byteLen)
    {
        switch (type)
        {
            case TYPE_CONNECT -> onConnect(base, srcVqpn, credits, byteLen);
            case TYPE_RC_CONNECT -> onRcConnect(base, byteLen);
            case TYPE_RC_ACCEPT -> onRcAccept(base, srcVqpn);
            case TYPE_RC_REFUSE -> onRcRefuse(base, srcVqpn);
            case TYPE_RC_CLOSE -> onRcClose(base);
            case TYPE_RC_CLOSED -> onRcClosed(base);
            case TYPE_MALLOC -> onMalloc(base, byteLen);
            case TYPE_MALLOC_DONE -> onMallocDone(base);
            default ->
            {
                // unknown control messages are dropped: a newer peer may send what this driver does not know
            }
        }
    }

    private void onConnect(final long base, final int srcVqpn, final int credits, final int byteLen)
    {
        if (byteLen < LENGTH + CONNECT_LENGTH)
        {
            return;
        }
        final NodeRecord sender = readSender(base);
        if (sender == null)
        {
            return;
        }
        final MemorySegment memory = receive.segment();
        final int service = memory.get(INT, base + CONNECT_SERVICE_OFFSET);
        final NodeRoute route = routeTo(sender);
        final DriverListener listener;
        synchronized (listeners)
        {
            listener = listeners.get(service);
        }
        if (listener == null || driver.isClosed())
        {
            admission.countRefusal();
            refuse(route, srcVqpn, service, listener == null ? REFUSE_NO_LISTENER : REFUSE_CLOSING, 0, 0);
            return;
        }
        final ConnectAdmission.Decision decision = this.decision;
        admission.admit(sender.address(), listener, driver.clockMillis(), decision);
        final ConnectAdmission.Inbound admitted = decision.admitted;
        // a CLOSE for each would double what a flood costs in answers
        closeReclaimed(decision.reclaimedOfPeer, false);
        closeReclaimed(decision.reclaimedInDriver, false);
        if (admitted == null)
        {
            refuse(route, srcVqpn, service, decision.reason, decision.held, decision.limit);
            return;
        }
        final DriverConnection connection;
        try
        {
            connection = driver.newConnection(route, null);
        }
        catch (final RaasException noVqpn)
        {
            admission.release(admitted);
            refuse(route, srcVqpn, service, REFUSE_DRIVER_LIMIT, driver.connectionCount(),
                RaasDriver.MAX_CONNECTIONS - 1);
            return;
        }
        admitted.connection = connection;
        connection.inbound = admitted;
        final MessageChannel channel = new MessageChannel(this, connection, 0, admitted);
        connection.channel = channel;
        channel.establish(srcVqpn, credits,
            memory.get(LONG, base + CONNECT_ADVERT_ADDRESS_OFFSET),
            memory.get(INT, base + CONNECT_ADVERT_RKEY_OFFSET),
            memory.get(INT, base + CONNECT_ADVERT_BYTES_OFFSET),
            memory.get(INT, base + CONNECT_QPN_OFFSET));
        listener.offer(connection);
        accept(connection, route, srcVqpn);
    }

    /**
     * Answer a CONNECT with an ACCEPT: now if a slot is free, else soon. Answers to a flood may hold every
     * slot for a while; a real node's CONNECT then waits for one rather than being refused, and what waits
     * is bounded, each a connection admission counts.
     */
    private void accept(final DriverConnection connection, final NodeRoute route, final int connectorVqpn)
    {
        final MessageChannel channel = connection.channel;
        if (connection.isClosed() || channel == null)
        {
            return;
        }
        final RequestSlot slot =
            controlSlot(route, connectorVqpn, TYPE_ACCEPT, connection.vqpn(), channel.grantedCredits(), ACCEPT_LENGTH);
        if (slot == null)
        {
            backlog.add(() -> accept(connection, route, connectorVqpn));
            return;
        }
        // no buffer advertised until the connection is used: see ConnectAdmission
        channel.writeAdvert(slot.staging, ACCEPT_ADDRESS_OFFSET, ACCEPT_RKEY_OFFSET, ACCEPT_BYTES_OFFSET);
        slot.staging.set(INT, ACCEPT_UD_QPN_OFFSET, driver.ud.qp.qpNum());
        postControl(slot, ACCEPT_LENGTH);
    }

    /**
     * Answer a CONNECT with a REFUSE saying why, if a slot is free: refusals are what a flood gets, so none
     * waits for a slot (that would let a flood grow the backlog without bound); the connector's connect then
     * times out instead.
     */
    private void refuse(
        final NodeRoute route, final int connectorVqpn, final int service, final int reason, final int held, final int limit)
    {
        final RequestSlot slot = controlSlot(route, connectorVqpn, TYPE_REFUSE, 0, 0, REFUSE_LENGTH);
        if (slot == null)
        {
            return;
        }
        slot.staging.set(INT, REFUSE_SERVICE_OFFSET, service);
        slot.staging.set(INT, REFUSE_REASON_OFFSET, reason);
        slot.staging.set(INT, REFUSE_HELD_OFFSET, held);
        slot.staging.set(INT, REFUSE_LIMIT_OFFSET, limit);
        postControl(slot, REFUSE_LENGTH);
    }

    /**
     * Close an inbound connection admission reclaimed (unused past its deadline, or its place taken): not
     * under admission's lock, since closing waits for a receiver that may be polling.
     */
    private static void closeReclaimed(final ConnectAdmission.Inbound reclaimed, final boolean tellPeer)
    {
        if (reclaimed != null && reclaimed.connection != null)
        {
            reclaimed.listener.forget(reclaimed.connection);
            reclaimed.connection.close(tellPeer);
        }
    }

    /** Tell the peer where it may WRITE, once the connection was used: now if a slot is free, else soon. */
    void sendAdvert(
        final NodeRoute route, final int peerVqpn, final int vqpn, final long address, final int rkey, final int bytes)
    {
        final RequestSlot slot = controlSlot(route, peerVqpn, TYPE_ADVERT, vqpn, 0, ADVERT_LENGTH);
        if (slot == null)
        {
            backlog.add(() -> sendAdvert(route, peerVqpn, vqpn, address, rkey, bytes));
            return;
        }
        slot.staging.set(LONG, ACCEPT_ADDRESS_OFFSET, address);
        slot.staging.set(INT, ACCEPT_RKEY_OFFSET, rkey);
        slot.staging.set(INT, ACCEPT_BYTES_OFFSET, bytes);
        postControl(slot, ADVERT_LENGTH);
    }

    // ---------------------------------------------------------------------------------------------
    // RC queue pairs to hot peers

    void countForPromotion(final NodeRoute route, final long nowMillis)
    {
        final int threshold = driver.context.rcPromoteRequests();
        if (threshold == 0 || route.rc != null || route.promoting || nowMillis < route.promoteNotBeforeMillis)
        {
            return;
        }
        if (nowMillis - route.windowStartMillis > driver.context.rcPromoteWindowMs())
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

    /** Start turning the route into an RC queue pair: ask the peer for its end. */
    void promote(final NodeRoute route)
    {
        synchronized (route)
        {
            if (route.rc != null || route.promoting || rcCount.get() >= driver.context.rcPoolSize())
            {
                return;
            }
            route.promoting = true;
        }
        // the message first: a queue pair is costly to make and to drop (on shm a file mapped, then
        // unmapped with every thread of the process stopped), so none is made that cannot be asked for
        final RequestSlot slot = controlSlot(route, 0, TYPE_RC_CONNECT, 0, 0, CONNECT_LENGTH);
        if (slot == null)
        {
            // every request slot is in use, or one is on its way back: again after a window, not at once
            route.promoteNotBeforeMillis = driver.clockMillis() + driver.context.rcPromoteWindowMs();
            route.promoting = false;
            return;
        }
        final PooledQp rc = createRc(route);
        if (rc == null)
        {
            driver.releaseSlot(slot);
            route.promoting = false;
            return;
        }
        rc.initiatedHere = true;
        rcPromotions.incrementAndGet();
        writeSelf(slot.staging, 0);
        slot.staging.set(INT, CONNECT_QPN_OFFSET, rc.qp.qpNum());
        postControl(slot, CONNECT_LENGTH);
    }

    private PooledQp createRc(final NodeRoute route)
    {
        if (rcCount.incrementAndGet() > driver.context.rcPoolSize())
        {
            rcCount.decrementAndGet();
            return null;
        }
        final QueuePair qp = driver.pd.createQp(new QpInitAttributes().type(QpType.RC).sendCq(driver.sendCq)
            .recvCq(driver.recvCq).srq(driver.srq).maxSendWr(driver.context.qpDepth()).maxSendSge(2).maxInlineData(64));
        qp.modify(QpAttributes.init(Access.REMOTE_MASK));
        final PooledQp pooled = new PooledQp(qp, driver.context.qpDepth(), driver.context.qpDepth());
        pooled.peer = route;
        pooled.lastUsedMillis = driver.clockMillis();
        rcByQpn.put(qp.qpNum(), pooled);
        return pooled;
    }

    private void discardRc(final PooledQp rc)
    {
        rcByQpn.remove(rc.qp.qpNum());
        rcs.remove(rc);
        driver.pooled.remove(rc);
        rcCount.decrementAndGet();
        rc.qp.close();
    }

    private void onRcConnect(final long base, final int byteLen)
    {
        if (byteLen < LENGTH + CONNECT_LENGTH)
        {
            return;
        }
        final NodeRecord sender = readSender(base);
        if (sender == null)
        {
            return;
        }
        final int peerQpn = receive.segment().get(INT, base + CONNECT_QPN_OFFSET);
        final NodeRoute route = routeTo(sender);
        final PooledQp existing = route.rc;
        final PooledQp rc = existing == null ? createRc(route) : null;
        if (rc == null)
        {
            final RequestSlot slot = controlSlot(route, 0, TYPE_RC_REFUSE, 0, 0, RC_LENGTH);
            if (slot != null)
            {
                slot.staging.set(INT, RC_QPN_OFFSET, peerQpn);
                postControl(slot, RC_LENGTH);
            }
            return;
        }
        rc.qp.modify(QpAttributes.rtr(sender.address(), peerQpn));
        rc.qp.modify(QpAttributes.rts());
        rc.peerQpn = peerQpn;
        activate(route, rc);
        final RequestSlot slot = controlSlot(route, 0, TYPE_RC_ACCEPT, 0, 0, RC_LENGTH);
        if (slot != null)
        {
            slot.staging.set(INT, RC_QPN_OFFSET, rc.qp.qpNum());
            slot.staging.set(INT, SRC_VQPN_OFFSET, peerQpn);
            postControl(slot, RC_LENGTH);
        }
    }

    private void onRcAccept(final long base, final int ourQpn)
    {
        final PooledQp rc = rcByQpn.get(ourQpn);
        if (rc == null)
        {
            return;
        }
        final int peerQpn = receive.segment().get(INT, base + RC_QPN_OFFSET);
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
        rc.peer.promoting = false;
    }

    /** The peer has no room for an RC queue pair (or holds one with us still): stay on DC for a while. */
    private void onRcRefuse(final long base, final int ignored)
    {
        final int ourQpn = receive.segment().get(INT, base + RC_QPN_OFFSET);
        final PooledQp rc = rcByQpn.get(ourQpn);
        if (rc != null)
        {
            rc.peer.promoteNotBeforeMillis = driver.clockMillis() + (long)REFUSAL_BACKOFF_WINDOWS * driver.context.rcPromoteWindowMs();
            rc.peer.promoting = false;
            discardRc(rc);
        }
    }

    private void activate(final NodeRoute route, final PooledQp rc)
    {
        rcWanted.remove(route.node.id());
        rc.lastUsedMillis = driver.clockMillis();
        rcs.add(rc);
        driver.pooled.add(rc);
        route.rc = rc;
    }

    /** The peer retires its end: stop posting here, drain, then close and say so. */
    private void onRcClose(final long base)
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
    private void onRcClosed(final long base)
    {
        final PooledQp rc = namedBySender(base);
        if (rc != null)
        {
            rc.closeReady = true;
            driver.requestMaintenance();
        }
    }

    /**
     * @return the RC queue pair an RC_CLOSE or RC_CLOSED names: this end's, by its own number, and only
     * if its peer is the sender's queue pair (else the message is about one closed already).
     */
    private PooledQp namedBySender(final long base)
    {
        final PooledQp rc = rcByQpn.get(receive.segment().get(INT, base + RC_QPN_OFFSET));
        return rc != null && rc.peerQpn == receive.segment().get(INT, base + RC_PEER_QPN_OFFSET) ? rc : null;
    }

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
        rc.retiredAtMillis = driver.clockMillis();
        rc.retired = true;
        if (tellPeer)
        {
            sendRcControl(rc, TYPE_RC_CLOSE);
        }
        driver.requestMaintenance();
    }

    private void sendRcControl(final PooledQp rc, final byte type)
    {
        final RequestSlot slot = controlSlot(rc.peer, 0, type, 0, 0, RC_CLOSE_LENGTH);
        if (slot == null)
        {
            backlog.add(() -> sendRcControl(rc, type));
            return;
        }
        slot.staging.set(INT, RC_QPN_OFFSET, rc.peerQpn);
        slot.staging.set(INT, RC_PEER_QPN_OFFSET, rc.qp.qpNum());
        postControl(slot, RC_CLOSE_LENGTH);
    }

    /**
     * A retired RC queue pair's turn (the submitter's, with nothing of its own outstanding on it):
     * close it when the peer is done with it too, or when the peer stayed silent too long.
     *
     * @return true when it was closed.
     */
    boolean closeIfDrained(final PooledQp rc, final long nowMillis)
    {
        if (rc.outstanding() != 0 || (!rc.closeReady && nowMillis - rc.retiredAtMillis < 10L * driver.context.rcIdleMs()))
        {
            return false;
        }
        close(rc);
        return true;
    }

    /** A broken RC queue pair with nothing outstanding: close it now; the route stays on DC. */
    void dropRc(final PooledQp rc)
    {
        rcRecycles.incrementAndGet();
        retire(rc, true);
        close(rc);
    }

    private void close(final PooledQp rc)
    {
        rcByQpn.remove(rc.qp.qpNum());
        rcs.remove(rc);
        driver.pooled.remove(rc);
        rcCount.decrementAndGet();
        final SlotQueue deferred = rc.deferred;
        RequestSlot slot;
        while ((slot = deferred.poll()) != null)
        {
            driver.requeue(slot);
        }
        if (rc.answerClosed)
        {
            sendRcControl(rc, TYPE_RC_CLOSED);
        }
        rc.qp.close();
    }

    int rcRecycles()
    {
        return rcRecycles.get();
    }

    long rcPromotions()
    {
        return rcPromotions.get();
    }

    /** @return RC queue pairs in use now. */
    int rcCount()
    {
        return rcs.size();
    }

    // ---------------------------------------------------------------------------------------------
    // remote malloc

    RemoteRegion remoteMalloc(final NodeRoute route, final long size, final String name, final int access)
    {
        final byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > RemoteRegion.MAX_NAME_LENGTH)
        {
            throw new RaasException("region name of " + nameBytes.length + " bytes exceeds " + RemoteRegion.MAX_NAME_LENGTH);
        }
        final long token = nextToken.getAndIncrement();
        final MallocWait wait = new MallocWait();
        synchronized (mallocs)
        {
            mallocs.put(token, wait);
        }
        try
        {
            RequestSlot slot;
            int spins = 0;
            while ((slot = controlSlot(route, 0, TYPE_MALLOC, 0, 0, MALLOC_FIXED_LENGTH + nameBytes.length)) == null)
            {
                if (driver.poll() == 0)
                {
                    RaasDriver.idle(++spins);
                }
            }
            slot.staging.set(LONG, MALLOC_SIZE_OFFSET, size);
            slot.staging.set(INT, MALLOC_TOKEN_OFFSET, (int)token);
            slot.staging.set(INT, MALLOC_ACCESS_OFFSET, access);
            slot.staging.set(INT, MALLOC_NAME_LENGTH_OFFSET, nameBytes.length);
            MemorySegment.copy(MemorySegment.ofArray(nameBytes), 0, slot.staging, MALLOC_NAME_OFFSET, nameBytes.length);
            writeSelfForReply(slot);
            postControl(slot, MALLOC_FIXED_LENGTH + nameBytes.length + REPLY_TO_LENGTH);
            final long deadline = System.nanoTime() + driver.context.timeoutMs() * 1_000_000L;
            int waitSpins = 0;
            while (!wait.done)
            {
                if (driver.poll() == 0)
                {
                    RaasDriver.idle(++waitSpins);
                    if (System.nanoTime() > deadline)
                    {
                        throw new RaasException("malloc of " + size + " bytes named '" + name + "' on node " + route.node.id() +
                            " got no answer within " + driver.context.timeoutMs() + " ms");
                    }
                }
            }
            if (wait.status != RaasStatus.SUCCESS)
            {
                throw new RaasException("node " + route.node.id() + " refused malloc of " + size + " bytes named '" + name + "': " +
                    (wait.status == RaasStatus.NOT_PERMITTED ?
                    "the name is taken, or the node allocates no more than that for peers (remoteMallocBytes)" :
                    RaasStatus.describe(wait.status)));
            }
            final RemoteRegion region = new RemoteRegion(name, route.node.id(), wait.epoch, wait.address, wait.rkey, wait.length,
                wait.access, 1);
            driver.trust(region);
            return region;
        }
        finally
        {
            synchronized (mallocs)
            {
                mallocs.remove(token);
            }
        }
    }

    /*
     * A MALLOC also carries the asker's record after its name, so that the answer reaches a node
     * the allocating driver does not know.
     */
    private static final int REPLY_TO_LENGTH = CONNECT_LENGTH;

    private void writeSelfForReply(final RequestSlot slot)
    {
        final int nameLength = slot.staging.get(INT, MALLOC_NAME_LENGTH_OFFSET);
        final long replyTo = MALLOC_NAME_OFFSET + nameLength;
        final MemorySegment record = slot.staging.asSlice(replyTo - LENGTH, LENGTH + CONNECT_LENGTH);
        final byte[] saved = record.asSlice(0, LENGTH).toArray(BYTE);
        writeSelf(record, 0);
        MemorySegment.copy(MemorySegment.ofArray(saved), 0, record, 0, LENGTH);
    }

    private void onMalloc(final long base, final int byteLen)
    {
        final MemorySegment memory = receive.segment();
        final long size = memory.get(LONG, base + MALLOC_SIZE_OFFSET);
        final int token = memory.get(INT, base + MALLOC_TOKEN_OFFSET);
        final int access = memory.get(INT, base + MALLOC_ACCESS_OFFSET);
        final int nameLength = memory.get(INT, base + MALLOC_NAME_LENGTH_OFFSET);
        if (nameLength < 0 || nameLength > RemoteRegion.MAX_NAME_LENGTH ||
            byteLen < MALLOC_NAME_OFFSET + nameLength + CONNECT_LENGTH)
        {
            return;
        }
        final byte[] nameBytes = new byte[nameLength];
        MemorySegment.copy(memory, BYTE, base + MALLOC_NAME_OFFSET, nameBytes, 0, nameLength);
        final NodeRecord sender = readSender(base + MALLOC_NAME_OFFSET + nameLength - LENGTH);
        if (sender == null)
        {
            return;
        }
        final NodeRoute route = routeTo(sender);
        final String name = new String(nameBytes, StandardCharsets.UTF_8);
        int status = RaasStatus.SUCCESS;
        RemoteRegion region = null;
        // a peer is not authenticated here: it gets no more of this node's memory than the budget for peers
        if (size <= 0 || size > driver.context.remoteMallocBytes() - remoteMallocBytes.get())
        {
            status = RaasStatus.NOT_PERMITTED;
        }
        else
        {
            try
            {
                region = driver.allocateLocal(size, name, access);
                remoteMallocBytes.addAndGet(region.length());
            }
            catch (final RuntimeException ex)
            {
                status = RaasStatus.NOT_PERMITTED;
            }
        }
        final RequestSlot slot = controlSlot(route, 0, TYPE_MALLOC_DONE, 0, 0, MALLOC_DONE_LENGTH);
        if (slot == null)
        {
            return;
        }
        slot.staging.set(INT, MALLOC_DONE_TOKEN_OFFSET, token);
        slot.staging.set(INT, MALLOC_DONE_STATUS_OFFSET, status);
        if (region != null)
        {
            slot.staging.set(LONG, MALLOC_DONE_ADDRESS_OFFSET, region.address());
            slot.staging.set(INT, MALLOC_DONE_RKEY_OFFSET, region.rkey());
            slot.staging.set(LONG, MALLOC_DONE_LENGTH_OFFSET, region.length());
            slot.staging.set(LONG, MALLOC_DONE_EPOCH_OFFSET, region.nodeEpoch());
            slot.staging.set(INT, MALLOC_DONE_ACCESS_OFFSET, region.access());
        }
        postControl(slot, MALLOC_DONE_LENGTH);
    }

    private void onMallocDone(final long base)
    {
        final MemorySegment memory = receive.segment();
        final int token = memory.get(INT, base + MALLOC_DONE_TOKEN_OFFSET);
        final MallocWait wait;
        synchronized (mallocs)
        {
            wait = mallocs.get(token);
        }
        if (wait == null)
        {
            return;
        }
        wait.status = memory.get(INT, base + MALLOC_DONE_STATUS_OFFSET);
        wait.address = memory.get(LONG, base + MALLOC_DONE_ADDRESS_OFFSET);
        wait.rkey = memory.get(INT, base + MALLOC_DONE_RKEY_OFFSET);
        wait.length = memory.get(LONG, base + MALLOC_DONE_LENGTH_OFFSET);
        wait.epoch = memory.get(LONG, base + MALLOC_DONE_EPOCH_OFFSET);
        wait.access = memory.get(INT, base + MALLOC_DONE_ACCESS_OFFSET);
        wait.done = true;
    }

    // ---------------------------------------------------------------------------------------------
    // housekeeping

    /**
     * Demote RC queue pairs that went idle, close retired ones, and send what the backlog holds.
     */
    int housekeeping(final long nowMillis)
    {
        int work = 0;
        ConnectAdmission.Inbound expired = admission.reclaimExpired(nowMillis);
        while (expired != null)
        {
            final ConnectAdmission.Inbound next = expired.newerInDriver;
            // past the deadline: most likely a slow real node, which should hear of it
            closeReclaimed(expired, true);
            expired = next;
            work++;
        }
        Runnable task;
        // what was there when the turn began: a task finding no free slot goes back for the next turn
        for (int waiting = backlog.size(); waiting > 0 && (task = backlog.poll()) != null; waiting--)
        {
            task.run();
            work++;
        }
        if (!rcWanted.isEmpty())
        {
            for (final Long nodeId : rcWanted)
            {
                final NodeRoute route = driver.knownRoute(nodeId);
                if (route != null && route.rc == null && !route.promoting && nowMillis >= route.promoteNotBeforeMillis)
                {
                    promote(route);
                    work++;
                }
            }
        }
        final long idle = driver.context.rcIdleMs();
        for (final PooledQp rc : rcs)
        {
            // the end that asked for the queue pair knows when it went idle; the other end sees only its
            // own requests (one-sided traffic to it is invisible), so it waits far longer before asking
            final long limit = rc.initiatedHere ? idle : 10L * idle;
            if (!rc.retired && nowMillis - rc.lastUsedMillis > limit && rc.outstanding() == 0)
            {
                retire(rc, true);
                work++;
            }
            else if (rc.retired)
            {
                driver.requestMaintenance();
            }
        }
        if (work > 0)
        {
            driver.drainSubmissions();
        }
        return work;
    }
}

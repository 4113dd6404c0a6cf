package io.dkv.raas.driver;

import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.WcOpcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static io.dkv.raas.ControlHeader.*;
import static io.dkv.raas.driver.ControlMessages.BYTE;
import static io.dkv.raas.driver.ControlMessages.INT;
import static io.dkv.raas.driver.ControlMessages.LONG;

/**
 * The two-sided half of the driver: listeners, connecting (CONNECT, answered by ACCEPT or REFUSE,
 * as {@link ConnectAdmission} decides), and every receive of the shared receive queue, which goes to
 * the connection its immediate data names or, for the driver's own messages, to connecting, to
 * {@link RcPromotion} or to {@link RemoteAllocation}.
 */
final class MessageService
{
    private final RaasContext context;
    private final ProtectionDomain pd;
    private final int mtu;
    private final RequestPipeline pipeline;
    private final ControlMessages control;
    private final ReceiveBuffers receiveBuffers;
    private final SendBuffers sendBuffers;
    private final Registrations registrations;
    private final ConnectionTable connections;
    private final Routes routes;
    private final ConnectAdmission admission;
    private final RcPromotion promotion;
    private final RemoteAllocation allocation;
    private final DriverMillis clock;
    private final int udQpn;
    private final long selfId;
    /**
     * Listeners by service, then by the node they listen as: this driver's own, or a node an attached application is
     * (several such applications may each listen on the same service).
     */
    private final Int2ObjectHashMap<Long2ObjectHashMap<DriverListener>> listeners = new Int2ObjectHashMap<>();
    /** Admission's answer to the CONNECT being delivered: only the thread delivering completions uses it. */
    private final ConnectAdmission.Decision decision = new ConnectAdmission.Decision();

    MessageService(
        final RaasContext context,
        final ProtectionDomain pd,
        final int mtu,
        final RequestPipeline pipeline,
        final ControlMessages control,
        final ReceiveBuffers receiveBuffers,
        final SendBuffers sendBuffers,
        final Registrations registrations,
        final ConnectionTable connections,
        final Routes routes,
        final ConnectAdmission admission,
        final RcPromotion promotion,
        final RemoteAllocation allocation,
        final DriverMillis clock,
        final int udQpn,
        final long selfId)
    {
        this.context = context;
        this.pd = pd;
        this.mtu = mtu;
        this.pipeline = pipeline;
        this.control = control;
        this.receiveBuffers = receiveBuffers;
        this.sendBuffers = sendBuffers;
        this.registrations = registrations;
        this.connections = connections;
        this.routes = routes;
        this.admission = admission;
        this.promotion = promotion;
        this.allocation = allocation;
        this.clock = clock;
        this.udQpn = udQpn;
        this.selfId = selfId;
    }

    private MessageChannel newChannel(
        final DriverConnection connection, final int flags, final ConnectAdmission.Inbound inbound)
    {
        final MessageChannel channel = new MessageChannel(context, pd, mtu, pipeline, control, receiveBuffers,
            sendBuffers, registrations, admission, connection, flags, inbound);
        connection.attach(channel);
        return channel;
    }

    // ---------------------------------------------------------------------------------------------
    // connecting and listening

    /**
     * Listen on a service as a node: this driver's own (0 or its id) or one an attached application is, which CONNECTs
     * name as their target.
     */
    Listener listen(final long nodeId, final int service)
    {
        if (service <= 0)
        {
            throw new RaasException("service numbers start at 1, got " + service);
        }
        final long node = nodeId == 0 ? selfId : nodeId;
        synchronized (listeners)
        {
            Long2ObjectHashMap<DriverListener> ofService = listeners.get(service);
            if (ofService == null)
            {
                ofService = new Long2ObjectHashMap<>();
                listeners.put(service, ofService);
            }
            if (ofService.containsKey(node))
            {
                throw new RaasException("service " + service + " already has a listener on node " + node +
                    (node == selfId ? "" : " (served by driver node " + selfId + ")"));
            }
            final DriverListener listener = new DriverListener(this, pipeline, node, service);
            ofService.put(node, listener);
            return listener;
        }
    }

    void removeListener(final DriverListener listener)
    {
        synchronized (listeners)
        {
            final Long2ObjectHashMap<DriverListener> ofService = listeners.get(listener.service());
            if (ofService != null && ofService.remove(listener.nodeId(), listener) && ofService.isEmpty())
            {
                listeners.remove(listener.service());
            }
        }
    }

    /**
     * Make the connection carry messages: CONNECT to the service, and wait for the answer.
     *
     * @param asNodeId the node the CONNECT says it comes from: 0 for this driver's own, else a node an attached
     *                 application is, reached at this driver's address.
     */
    void connect(final DriverConnection connection, final long asNodeId, final int service, final int flags)
    {
        if (service <= 0)
        {
            throw new RaasException("service numbers start at 1, got " + service);
        }
        final MessageChannel channel = newChannel(connection, flags, null);
        final NodeRoute route = connection.route();
        if ((flags & Flags.FORCE_RC) != 0)
        {
            promotion.want(route);
        }
        final RequestSlot slot = control.awaitControlSlot(
            route, 0, TYPE_CONNECT, connection.vqpn(), channel.grantedCredits(), CONNECT_LENGTH);
        // the connection hears of a CONNECT that could not be delivered, so the connect fails at once
        slot.connection = connection;
        control.writeSelf(slot.staging, service);
        if (asNodeId != 0)
        {
            slot.staging.set(LONG, CONNECT_NODE_ID_OFFSET, asNodeId);
        }
        slot.staging.set(LONG, CONNECT_TARGET_ID_OFFSET, connection.nodeId());
        channel.writeAdvert(
            slot.staging, CONNECT_ADVERT_ADDRESS_OFFSET, CONNECT_ADVERT_RKEY_OFFSET, CONNECT_ADVERT_BYTES_OFFSET);
        slot.staging.set(INT, CONNECT_QPN_OFFSET, udQpn);
        control.post(slot, CONNECT_LENGTH);
        channel.awaitEstablished(Duration.ofMillis(context.timeoutMs()), service);
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
                receiveBuffers.repost(buffer);
            }
            else if (receiveBuffers.isDatagram(buffer))
            {
                receiveBuffers.onFlushed(buffer);
            }
            return;
        }
        // a datagram's global route header sits in the room before the buffer: the message starts at its offset
        final int byteLen = wc.hasGrh() ? wc.byteLen() - WorkCompletion.GRH_LENGTH : wc.byteLen();
        final int imm = wc.immData();
        if (wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM)
        {
            receiveBuffers.repost(buffer);
            final DriverConnection connection = connections.connection(imm);
            final MessageChannel channel = connection == null ? null : connection.channel();
            if (channel != null)
            {
                channel.onWritten(byteLen);
            }
            return;
        }
        final long base = receiveBuffers.offset(buffer);
        final MemorySegment memory = receiveBuffers.memory();
        if (byteLen < LENGTH)
        {
            receiveBuffers.repost(buffer);
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
                onDriverMessage(type, base, srcVqpn, credits, byteLen);
            }
            finally
            {
                receiveBuffers.repost(buffer);
            }
            return;
        }
        final DriverConnection connection = connections.connection(imm);
        final MessageChannel channel = connection == null ? null : connection.channel();
        if (channel == null)
        {
            receiveBuffers.repost(buffer);
            return;
        }
        if (type == TYPE_DATA)
        {
            if (length < 0 || length > byteLen - LENGTH)
            {
                receiveBuffers.repost(buffer);
                return;
            }
            channel.onData(buffer, length);
            return;
        }
        try
        {
            channel.onControl(type, base, srcVqpn, credits, length, byteLen);
        }
        finally
        {
            receiveBuffers.repost(buffer);
        }
    }

    private void onDriverMessage(
        final byte type, final long base, final int srcVqpn, final int credits, final int byteLen)
    {
        switch (type)
        {
            case TYPE_CONNECT -> onConnect(base, srcVqpn, credits, byteLen);
            case TYPE_RC_CONNECT -> promotion.onRcConnect(base, byteLen);
            case TYPE_RC_ACCEPT -> promotion.onRcAccept(base, srcVqpn);
            case TYPE_RC_REFUSE -> promotion.onRcRefuse(base);
            case TYPE_RC_CLOSE -> promotion.onRcClose(base);
            case TYPE_RC_CLOSED -> promotion.onRcClosed(base);
            case TYPE_MALLOC -> allocation.onMalloc(base, byteLen);
            case TYPE_MALLOC_DONE -> allocation.onMallocDone(base);
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
        final NodeRecord sender = control.readSender(base);
        if (sender == null)
        {
            return;
        }
        final MemorySegment memory = receiveBuffers.memory();
        final int service = memory.get(INT, base + CONNECT_SERVICE_OFFSET);
        final long target = memory.get(LONG, base + CONNECT_TARGET_ID_OFFSET);
        final NodeRoute route = routes.routeFor(sender);
        final DriverListener listener;
        synchronized (listeners)
        {
            final Long2ObjectHashMap<DriverListener> ofService = listeners.get(service);
            listener = ofService == null ? null : ofService.get(target == 0 ? selfId : target);
        }
        if (listener == null || pipeline.isClosed())
        {
            admission.countRefusal();
            refuse(route, srcVqpn, service, listener == null ? REFUSE_NO_LISTENER : REFUSE_CLOSING, 0, 0);
            return;
        }
        final ConnectAdmission.Decision decision = this.decision;
        admission.admit(sender.address(), listener, clock.time(), decision);
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
            connection = connections.open(route, null);
        }
        catch (final RaasException noVqpn)
        {
            admission.release(admitted);
            refuse(route, srcVqpn, service, REFUSE_DRIVER_LIMIT, connections.count(),
                ConnectionTable.MAX_CONNECTIONS - 1);
            return;
        }
        admitted.connection = connection;
        connection.admittedAs(admitted);
        final MessageChannel channel = newChannel(connection, 0, admitted);
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
        final MessageChannel channel = connection.channel();
        if (connection.isClosed() || channel == null)
        {
            return;
        }
        final RequestSlot slot = control.controlSlot(
            route, connectorVqpn, TYPE_ACCEPT, connection.vqpn(), channel.grantedCredits(), ACCEPT_LENGTH);
        if (slot == null)
        {
            control.later(() -> accept(connection, route, connectorVqpn));
            return;
        }
        // no buffer advertised until the connection is used: see ConnectAdmission
        channel.writeAdvert(slot.staging, ACCEPT_ADDRESS_OFFSET, ACCEPT_RKEY_OFFSET, ACCEPT_BYTES_OFFSET);
        slot.staging.set(INT, ACCEPT_UD_QPN_OFFSET, udQpn);
        control.post(slot, ACCEPT_LENGTH);
    }

    /**
     * Answer a CONNECT with a REFUSE saying why, if a slot is free: refusals are what a flood gets, so none
     * waits for a slot (that would let a flood grow the backlog without bound); the connector's connect then
     * times out instead.
     */
    private void refuse(
        final NodeRoute route,
        final int connectorVqpn,
        final int service,
        final int reason,
        final int held,
        final int limit)
    {
        final RequestSlot slot = control.controlSlot(route, connectorVqpn, TYPE_REFUSE, 0, 0, REFUSE_LENGTH);
        if (slot == null)
        {
            return;
        }
        slot.staging.set(INT, REFUSE_SERVICE_OFFSET, service);
        slot.staging.set(INT, REFUSE_REASON_OFFSET, reason);
        slot.staging.set(INT, REFUSE_HELD_OFFSET, held);
        slot.staging.set(INT, REFUSE_LIMIT_OFFSET, limit);
        control.post(slot, REFUSE_LENGTH);
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

    // ---------------------------------------------------------------------------------------------
    // completions of message requests

    /** A message, control or read-in request completed: give back the buffer it was sent from. */
    void onSent(final RequestSlot slot, final int status)
    {
        final MessageChannel channel = slot.connection == null ? null : slot.connection.channel();
        if (slot.kind == RequestSlot.KIND_READ_IN && channel != null)
        {
            channel.onReadIn(slot, status);
            return;
        }
        if (slot.sendBuffer >= 0)
        {
            sendBuffers.release(slot.sendBuffer);
            slot.sendBuffer = -1;
        }
        if (status != RaasStatus.SUCCESS && channel != null)
        {
            channel.onSendFailed(status);
        }
        if (status != RaasStatus.SUCCESS && slot.kind == RequestSlot.KIND_CONTROL &&
            slot.staging.get(BYTE, TYPE_OFFSET) == TYPE_RC_CONNECT)
        {
            promotion.onConnectFailed(slot);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // housekeeping

    /**
     * Close inbound connections left unused past their deadline, send what the backlog holds, and keep
     * the RC queue pairs in shape.
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
        work += control.sendBacklog();
        work += promotion.housekeeping(nowMillis);
        if (work > 0)
        {
            pipeline.drainSubmissions();
        }
        return work;
    }
}

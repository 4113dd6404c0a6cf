package io.dkv.verbs.shm;

import io.dkv.verbs.Access;
import io.dkv.verbs.Opcode;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpState;
import io.dkv.verbs.QpType;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.soft.LocalMemory;
import io.dkv.verbs.soft.RemoteAccess;
import io.dkv.verbs.soft.SendSlot;
import io.dkv.verbs.soft.SoftAddressHandle;
import io.dkv.verbs.soft.SoftProtectionDomain;
import io.dkv.verbs.soft.SoftQueuePair;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static io.dkv.verbs.shm.ShmControlDescriptor.KIND_DCI;
import static io.dkv.verbs.shm.ShmControlDescriptor.KIND_DCT;
import static io.dkv.verbs.shm.ShmControlDescriptor.KIND_RC;
import static io.dkv.verbs.shm.ShmControlDescriptor.KIND_UD;
import static io.dkv.verbs.shm.ShmMessageDescriptor.*;

/**
 * A shm queue pair. The initiator does the responder NIC's work itself: it checks the target's
 * tables and executes READ, WRITE and atomics on the mapped target memory, so the target's threads
 * never run. SENDs go into the target's receive ring and complete when the target's poller
 * delivered them and wrote the acknowledgement back.
 */
final class ShmQueuePair extends SoftQueuePair
{
    private final ShmDevice shm;
    private final int kind;
    private final Path queuePath;
    private final Arena arena = Arena.ofShared();
    private final ShmQueueFile queue;
    private final ShmRingReceiver receiver;
    private final ShmEndpointEntry endpointEntry = new ShmEndpointEntry();
    private final ShmRegionEntry regionEntry = new ShmRegionEntry();
    private final long retryTimeoutNanos;
    private final NanoClock nanoClock;
    private ShmRemoteDevice peer;
    private ShmQueueFile peerQueue;
    private long notReadySince;
    /** Null when nobody counts them. */
    private final AtomicCounter rnrRetries;

    ShmQueuePair(final ShmDevice shm, final SoftProtectionDomain pd, final int number,
        final QpInitAttributes attributes)
    {
        super(shm, pd, number, attributes);
        this.shm = shm;
        this.retryTimeoutNanos = shm.context().retryTimeoutMs() * 1_000_000L;
        this.nanoClock = shm.context().nanoClock();
        this.rnrRetries = shm.receiverNotReadyCounter();
        this.kind = switch (attributes.type())
        {
            case RC -> KIND_RC;
            case UD -> KIND_UD;
            case DCI -> KIND_DCI;
        };
        final int ackSlots = kind == KIND_UD ? 0 : BitUtil.findNextPositivePowerOfTwo(attributes.maxSendWr());
        final int ringLength = kind == KIND_DCI ? 0 : shm.ringCapacity();
        final long fileSeq = shm.nextFileSeq();
        this.queuePath = shm.directory().resolve(ShmDevice.queueFileName(fileSeq));
        final MemorySegment segment =
            ShmFiles.create(queuePath, ShmQueueDescriptor.fileLength(ackSlots, ringLength), arena);
        this.queue = ShmQueueFile.create(segment, kind, number, ackSlots, ringLength);
        this.receiver = ringLength == 0 ? null : new ShmRingReceiver(shm, this, queue, kind, attributes.maxRecvSge());
        shm.control().putEndpoint(
            endpointIndex(), number, kind, QpState.RESET.ordinal(), pd.id(), 0, 0, 0, fileSeq);
        sendCq.addProgressor(this);
        if (recvCq != null && recvCq != sendCq)
        {
            recvCq.addProgressor(this);
        }
    }

    private int endpointIndex()
    {
        return number & (shm.control().endpointCapacity() - 1);
    }

    protected void connect(final PortAddress peerAddress, final int peerQpn)
    {
        final ShmRemoteDevice remote = shm.remote(peerAddress.shmDeviceId());
        final ShmQueueFile remoteQueue = remote.queue(peerQpn, endpointEntry);
        if (remoteQueue == null)
        {
            throw new VerbsException(String.format("no QP 0x%x on %s", peerQpn, peerAddress));
        }
        if (endpointEntry.kind != KIND_RC)
        {
            throw new VerbsException(String.format("QP 0x%x on %s is not an RC QP", peerQpn, peerAddress));
        }
        peer = remote;
        peerQueue = remoteQueue;
        receiver.connect(remote.deviceId(), peerQpn, remoteQueue);
    }

    protected void onStateChanged(final QpState from, final QpState to)
    {
        if (to == QpState.INIT)
        {
            queue.markOpen();
            if (receiver != null)
            {
                receiver.qkey(qkey());
            }
        }
        publishState(to);
    }

    protected void onError()
    {
        queue.markClosed();
        publishState(QpState.ERROR);
    }

    private void publishState(final QpState to)
    {
        shm.control().putEndpointState(endpointIndex(), to.ordinal(), responderAccess(), qkey());
    }

    protected void onDestroy()
    {
        queue.markClosed();
        shm.control().clearEndpoint(endpointIndex());
        sendCq.removeProgressor(this);
        if (recvCq != null)
        {
            recvCq.removeProgressor(this);
        }
        arena.close();
        ShmFiles.delete(queuePath);
    }

    protected int transmit(final SendSlot slot)
    {
        try
        {
            switch (type)
            {
                case RC:
                    return transmitRc(slot);
                case UD:
                    return transmitUd(slot);
                default:
                    return transmitDc(slot);
            }
        }
        catch (final IllegalStateException ex)
        {
            // a local buffer's memory was released while the request ran
            slot.status = WcStatus.LOC_PROT_ERR;
            return TX_DONE;
        }
    }

    private int transmitRc(final SendSlot slot)
    {
        final ShmRemoteDevice peer = this.peer;
        if (!peer.isReachable() || !peer.control().readEndpoint(destQpn(), endpointEntry))
        {
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        final QpState peerState = QpState.fromOrdinal(endpointEntry.state);
        if (!peerState.canReceive())
        {
            return peerNotReady(slot, peerState);
        }
        notReadySince = 0;
        if (slot.opcode.isTwoSided())
        {
            return sendMessage(peerQueue, slot, 0, 0);
        }
        return oneSided(peer, slot, endpointEntry.pdId, endpointEntry.access, peerQueue);
    }

    /**
     * The peer QP exists but cannot take requests: while it is still being set up (RESET, INIT) the
     * request waits and is offered again on each progress, until the retry timeout; a peer in
     * ERROR will not recover.
     */
    private int peerNotReady(final SendSlot slot, final QpState peerState)
    {
        if (peerState == QpState.ERROR)
        {
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        final long now = nanoClock.nanoTime();
        if (notReadySince == 0)
        {
            // counted once a wait: the request is offered again on each progress until the peer is ready
            notReadySince = now;
            if (rnrRetries != null)
            {
                rnrRetries.increment();
            }
        }
        else if (now - notReadySince > retryTimeoutNanos)
        {
            notReadySince = 0;
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        return TX_BLOCKED;
    }

    private int transmitDc(final SendSlot slot)
    {
        final ShmRemoteDevice target = route(slot.ah);
        if (target == null || !target.isReachable())
        {
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        // only messages go through the target's queue: a READ, WRITE or atomic needs its endpoint entry
        // alone, so that reaching a new target maps no more files than it must
        final boolean message = slot.opcode.isTwoSided() || slot.opcode == Opcode.RDMA_WRITE_WITH_IMM;
        final ShmQueueFile targetQueue = message ? target.queue(slot.dctNumber, endpointEntry) : null;
        final boolean found =
            message ? targetQueue != null : target.control().readEndpoint(slot.dctNumber, endpointEntry);
        if (!found || endpointEntry.kind != KIND_DCT)
        {
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        if (endpointEntry.dcKey != slot.dcKey)
        {
            slot.status = WcStatus.REM_ACCESS_ERR;
            return TX_DONE;
        }
        if (slot.opcode.isTwoSided())
        {
            return sendMessage(targetQueue, slot, 0, slot.dcKey);
        }
        return oneSided(target, slot, endpointEntry.pdId, endpointEntry.access, targetQueue);
    }

    private int transmitUd(final SendSlot slot)
    {
        slot.status = WcStatus.SUCCESS;
        final ShmRemoteDevice target = route(slot.ah);
        if (target == null || !target.isReachable())
        {
            return TX_DONE;
        }
        final ShmQueueFile targetQueue = target.queue(slot.remoteQpn, endpointEntry);
        if (targetQueue == null || endpointEntry.kind != KIND_UD || targetQueue.isClosed())
        {
            return TX_DONE;
        }
        // UD is unreliable: a full ring drops the datagram and the send still succeeds
        sendMessage(targetQueue, slot, slot.remoteQkey, 0);
        slot.status = WcStatus.SUCCESS;
        return TX_DONE;
    }

    private ShmRemoteDevice route(final SoftAddressHandle ah)
    {
        final Object route = ah.route();
        if (route != null && ((ShmRemoteDevice)route).isReachable())
        {
            return (ShmRemoteDevice)route;
        }
        try
        {
            final ShmRemoteDevice remote = shm.remote(ah.address().shmDeviceId());
            ah.route(remote);
            return remote;
        }
        catch (final VerbsException ex)
        {
            return null;
        }
    }

    /**
     * Put a SEND (or the notification of a WRITE_WITH_IMM) into a receive ring.
     */
    private int sendMessage(final ShmQueueFile target, final SendSlot slot, final int qkey, final long dcKey)
    {
        if (target.isClosed())
        {
            slot.status = WcStatus.RETRY_EXC_ERR;
            return TX_DONE;
        }
        final ManyToOneRingBuffer ring = target.ring();
        final int payload = slot.opcode == Opcode.RDMA_WRITE_WITH_IMM ? 0 : slot.length;
        final int index = ring.tryClaim(MSG_TYPE_ID, HEADER_LENGTH + payload);
        if (index < 0)
        {
            return TX_BLOCKED;
        }
        putHeader(ring.buffer(), index, slot, qkey, dcKey);
        if (payload > 0)
        {
            LocalMemory.gather(slot, 0, target.segment(), target.ringOffset() + index + HEADER_LENGTH, payload);
        }
        ring.commit(index);
        slot.status = WcStatus.SUCCESS;
        return type == QpType.UD ? TX_DONE : TX_SENT;
    }

    private void putHeader(final AtomicBuffer buffer, final int index, final SendSlot slot, final int qkey,
        final long dcKey)
    {
        buffer.putLong(index + SRC_DEVICE_OFFSET, shm.deviceId());
        buffer.putInt(index + SRC_QPN_OFFSET, number);
        buffer.putInt(index + PSN_OFFSET, slot.psn);
        buffer.putInt(index + OPCODE_OFFSET, slot.opcode.code());
        buffer.putInt(index + IMM_OFFSET, slot.immData);
        buffer.putInt(index + BYTE_LENGTH_OFFSET, slot.length);
        buffer.putInt(index + QKEY_OFFSET, qkey);
        buffer.putLong(index + DC_KEY_OFFSET, dcKey);
    }

    /**
     * Execute a one-sided request on the target's memory after the responder's checks.
     */
    private int oneSided(
        final ShmRemoteDevice target, final SendSlot slot, final int responderPd, final int responderAccess,
        final ShmQueueFile targetQueue)
    {
        final Opcode opcode = slot.opcode;
        final int required = Access.requiredFor(opcode);

        ManyToOneRingBuffer ring = null;
        int claimed = -1;
        if (opcode == Opcode.RDMA_WRITE_WITH_IMM)
        {
            if (targetQueue.isClosed())
            {
                slot.status = WcStatus.RETRY_EXC_ERR;
                return TX_DONE;
            }
            ring = targetQueue.ring();
            claimed = ring.tryClaim(MSG_TYPE_ID, HEADER_LENGTH);
            if (claimed < 0)
            {
                return TX_BLOCKED;
            }
            // named at once: a receiver standing behind this record while the write below runs asks whether we live
            ring.buffer().putLongVolatile(claimed + SRC_DEVICE_OFFSET, shm.deviceId());
        }

        final int index = slot.rkey >>> 8;
        WcStatus status;
        final MemorySegment memory;
        if (!target.control().readRegion(index, regionEntry) || regionEntry.key != slot.rkey || regionEntry.key == 0)
        {
            status = WcStatus.REM_ACCESS_ERR;
            memory = null;
        }
        else
        {
            status = RemoteAccess.check(regionEntry.pdId, regionEntry.access, regionEntry.base, regionEntry.length,
                responderPd, responderAccess, required, slot.remoteAddr, slot.length);
            memory = status == WcStatus.SUCCESS ? target.region(index, regionEntry.fileSeq) : null;
            if (status == WcStatus.SUCCESS && memory == null)
            {
                status = WcStatus.REM_ACCESS_ERR;
            }
        }

        if (status == WcStatus.SUCCESS)
        {
            final long offset = slot.remoteAddr - regionEntry.base;
            switch (opcode)
            {
                case RDMA_READ:
                    LocalMemory.scatterIntoSend(slot, 0, memory, offset, slot.length);
                    break;

                case RDMA_WRITE:
                case RDMA_WRITE_WITH_IMM:
                    LocalMemory.gather(slot, 0, memory, offset, slot.length);
                    break;

                case ATOMIC_CMP_AND_SWP:
                case ATOMIC_FETCH_AND_ADD:
                    LocalMemory.storeAtomicResult(
                        slot, RemoteAccess.atomic(opcode, memory, offset, slot.compareAdd, slot.swap));
                    break;

                default:
                    status = WcStatus.REM_INV_REQ_ERR;
            }
        }

        slot.status = status;
        if (ring != null)
        {
            if (status != WcStatus.SUCCESS)
            {
                ring.abort(claimed);
                return TX_DONE;
            }
            putHeader(ring.buffer(), claimed, slot, 0, slot.dcKey);
            ring.commit(claimed);
            return TX_SENT;
        }
        return TX_DONE;
    }

    protected boolean needsProgress()
    {
        return hasOutstandingNow() || (receiver != null && receiver.hasMessages());
    }

    protected void progressTransport()
    {
        if (hasOutstanding() && kind != KIND_UD)
        {
            collectAcknowledgements();
        }
        if (receiver != null && state().canReceive())
        {
            receiver.drain();
        }
    }

    private void collectAcknowledgements()
    {
        for (long position = head; position < txNext; position++)
        {
            final SendSlot slot = sentSlot((int)position);
            if (slot == null)
            {
                continue;
            }
            final long word = queue.ackWordAt(slot.psn);
            if ((int)(word >>> 32) == slot.psn)
            {
                finish(slot, WcStatus.fromCode((int)word));
            }
            else if (!targetReachable(slot))
            {
                finish(slot, WcStatus.RETRY_EXC_ERR);
                return;
            }
        }
    }

    private boolean targetReachable(final SendSlot slot)
    {
        if (type == QpType.RC)
        {
            return peer.isReachable() && !peerQueue.isClosed();
        }
        final Object route = slot.ah == null ? null : slot.ah.route();
        return route == null || ((ShmRemoteDevice)route).isReachable();
    }
}

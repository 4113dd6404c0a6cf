package io.dkv.verbs.shm;

import io.dkv.verbs.Opcode;
import io.dkv.verbs.WcStatus;
import io.dkv.verbs.WorkCompletion;
import io.dkv.verbs.soft.LocalMemory;
import io.dkv.verbs.soft.ReceiveSlot;
import io.dkv.verbs.soft.SoftEndpoint;
import io.dkv.verbs.VerbsException;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;

import static io.dkv.verbs.shm.ShmMessageDescriptor.*;

/**
 * Delivers messages from an endpoint's receive ring into posted receive requests, in the order
 * each sender wrote them, and acknowledges them to reliable senders. A message that finds no
 * receive request stays in the ring until one is posted (the receiver-not-ready case, retried
 * indefinitely as with {@code rnr_retry = 7}).
 *
 * <p>Senders write into the ring themselves: one killed between claiming room and committing leaves a record that
 * nothing completes, and every message behind it, from any sender, would wait for ever (a node that hears nothing
 * more, its lease lapsing). Such a record is passed over (made padding) once the sender it names is found gone: never
 * while that sender lives, as one paused midway (SIGSTOP, a long GC) goes on writing into the record when it wakes, and
 * room passed over may by then hold another's message. A record that is whole is never passed over.
 */
final class ShmRingReceiver implements ControlledMessageHandler
{
    private static final int DRAIN_LIMIT = 64;
    /** How often a ring standing behind a half-written record looks at whether its sender lives. */
    private static final long LOOK_INTERVAL_NANOS = 10_000_000L;

    private final ShmDevice device;
    private final SoftEndpoint endpoint;
    private final ShmQueueFile queue;
    private final int kind;
    private final MemorySegment ringSegment;
    private final long ringOffset;
    private final ReceiveSlot slot;
    private final ShmEndpointEntry scratch = new ShmEndpointEntry();
    private long peerDeviceId = -1;
    private int peerQpn;
    private ShmQueueFile peerQueue;
    private int qkey;
    private long dcKey;
    private long ackDeviceId = -1;
    private int ackQpn;
    private ShmQueueFile ackQueue;
    private ShmRemoteDevice ackDevice;
    /** A message waits in the ring for a receive request to be posted (receiver-not-ready). */
    private boolean waitingForReceive;
    private final NanoClock nanoClock;
    /** The ring's reading position when it was last seen standing still behind messages; -1 when it moves. */
    private long stuckPosition = -1;
    private long nextLookNanos;

    ShmRingReceiver(final ShmDevice device, final SoftEndpoint endpoint, final ShmQueueFile queue, final int kind,
        final int maxSge)
    {
        this.device = device;
        this.endpoint = endpoint;
        this.queue = queue;
        this.kind = kind;
        this.ringSegment = queue.segment();
        this.ringOffset = queue.ringOffset();
        this.slot = new ReceiveSlot(Math.max(1, maxSge));
        this.nanoClock = device.context().nanoClock();
    }

    /** RC: accept messages from this peer only and acknowledge them into its queue file. */
    void connect(final long peerDeviceId, final int peerQpn, final ShmQueueFile peerQueue)
    {
        this.peerDeviceId = peerDeviceId;
        this.peerQpn = peerQpn;
        this.peerQueue = peerQueue;
    }

    void qkey(final int qkey)
    {
        this.qkey = qkey;
    }

    void dcKey(final long dcKey)
    {
        this.dcKey = dcKey;
    }

    /** @return true when messages wait in the ring (read without locks: a hint for pollers). */
    boolean hasMessages()
    {
        return queue.ring().consumerPosition() != queue.ring().producerPosition();
    }

    int drain()
    {
        final int read = queue.ring().controlledRead(this, DRAIN_LIMIT);
        if (read == 0 && !waitingForReceive && hasMessages())
        {
            return passOverAbandoned();
        }
        stuckPosition = -1;
        return read;
    }

    /** @return 1 when a record its sender left half-written was made padding, else 0. */
    private int passOverAbandoned()
    {
        final ManyToOneRingBuffer ring = queue.ring();
        final long head = ring.consumerPosition();
        final long now = nanoClock.nanoTime();
        if (head != stuckPosition)
        {
            stuckPosition = head;
            nextLookNanos = now + LOOK_INTERVAL_NANOS;
            return 0;
        }
        if (now - nextLookNanos < 0)
        {
            return 0;
        }
        nextLookNanos = now + LOOK_INTERVAL_NANOS;
        final AtomicBuffer buffer = ring.buffer();
        final int recordIndex = (int)head & (ring.capacity() - 1);
        if (buffer.getIntVolatile(RecordDescriptor.lengthOffset(recordIndex)) > 0)
        {
            // whole: it waits for the endpoint, not for its sender
            return 0;
        }
        final long sender = buffer.getLongVolatile(
            RecordDescriptor.encodedMsgOffset(recordIndex) + SRC_DEVICE_OFFSET);
        if (!senderGone(sender) || !ring.unblock())
        {
            return 0;
        }
        stuckPosition = -1;
        final AtomicCounter abandoned = device.abandonedMessagesCounter();
        if (abandoned != null)
        {
            abandoned.increment();
        }
        return 1;
    }

    /**
     * @param sender the device a half-written record names: 0 while its sender had not written it yet.
     * @return true when no process of that device lives. A device whose id a new incarnation took (a restarted
     * MetaServer keeps its address) counts as alive, as the record may be the new one's: the old one is found gone
     * first, as the ring is looked at within milliseconds of standing still and a restart takes seconds.
     */
    private boolean senderGone(final long sender)
    {
        if (sender == 0 || sender == device.deviceId())
        {
            return false;
        }
        try
        {
            return !device.remote(sender).checkReachableNow();
        }
        catch (final VerbsException gone)
        {
            return true;
        }
    }

    public Action onMessage(final int msgTypeId, final MutableDirectBuffer buffer, final int index, final int length)
    {
        if (!endpoint.acceptsRequests())
        {
            return Action.ABORT;
        }
        if (msgTypeId != MSG_TYPE_ID || length < HEADER_LENGTH)
        {
            return Action.CONTINUE;
        }
        final long srcDeviceId = buffer.getLong(index + SRC_DEVICE_OFFSET);
        final int srcQpn = buffer.getInt(index + SRC_QPN_OFFSET);
        final int psn = buffer.getInt(index + PSN_OFFSET);
        final Opcode opcode = Opcode.fromCode(buffer.getInt(index + OPCODE_OFFSET));
        final int immData = buffer.getInt(index + IMM_OFFSET);
        final int byteLength = buffer.getInt(index + BYTE_LENGTH_OFFSET);
        if (opcode == null || !opcode.consumesReceive() ||
            (opcode != Opcode.RDMA_WRITE_WITH_IMM && byteLength != length - HEADER_LENGTH))
        {
            return Action.CONTINUE;
        }

        switch (kind)
        {
            case ShmControlDescriptor.KIND_RC:
                if (srcDeviceId != peerDeviceId || srcQpn != peerQpn)
                {
                    return Action.CONTINUE;
                }
                break;

            case ShmControlDescriptor.KIND_UD:
                if (buffer.getInt(index + QKEY_OFFSET) != qkey)
                {
                    return Action.CONTINUE;
                }
                break;

            case ShmControlDescriptor.KIND_DCT:
                if (buffer.getLong(index + DC_KEY_OFFSET) != dcKey)
                {
                    acknowledge(srcDeviceId, srcQpn, psn, WcStatus.REM_ACCESS_ERR);
                    return Action.CONTINUE;
                }
                break;

            default:
                return Action.CONTINUE;
        }

        if (!endpoint.takeReceive(slot))
        {
            if (!waitingForReceive)
            {
                // counted once a wait, here since over shm the sender cannot tell: its request just stays undelivered
                waitingForReceive = true;
                final AtomicCounter rnr = device.receiverNotReadyCounter();
                if (rnr != null)
                {
                    rnr.increment();
                }
            }
            return Action.ABORT;
        }
        waitingForReceive = false;
        final boolean writeWithImm = opcode == Opcode.RDMA_WRITE_WITH_IMM;
        // a datagram lands behind its global route header, as on an RNIC
        final int header = kind == ShmControlDescriptor.KIND_UD ? WorkCompletion.GRH_LENGTH : 0;
        final WcStatus status =
            LocalMemory.checkReceive(device, endpoint.pd(), slot, writeWithImm ? 0 : header + byteLength);
        if (status == WcStatus.SUCCESS && !writeWithImm)
        {
            if (header > 0)
            {
                LocalMemory.scatter(LocalMemory.GRH_BYTES, 0, header, slot, 0);
            }
            if (byteLength > 0)
            {
                LocalMemory.scatter(ringSegment, ringOffset + index + HEADER_LENGTH, byteLength, slot, header);
            }
        }
        acknowledge(srcDeviceId, srcQpn, psn, senderStatus(status));
        endpoint.completeReceive(slot, status, writeWithImm, opcode.carriesImmediate(), header + byteLength, immData,
            srcQpn, header > 0 ? WorkCompletion.GRH : 0);
        return Action.COMMIT;
    }

    private static WcStatus senderStatus(final WcStatus receiverStatus)
    {
        switch (receiverStatus)
        {
            case SUCCESS:
                return WcStatus.SUCCESS;
            case LOC_LEN_ERR:
                return WcStatus.REM_INV_REQ_ERR;
            default:
                return WcStatus.REM_OP_ERR;
        }
    }

    private void acknowledge(final long srcDeviceId, final int srcQpn, final int psn, final WcStatus status)
    {
        if (kind == ShmControlDescriptor.KIND_UD)
        {
            return;
        }
        final ShmQueueFile target;
        if (kind == ShmControlDescriptor.KIND_RC)
        {
            target = peerQueue;
        }
        else if (srcDeviceId == ackDeviceId && srcQpn == ackQpn && ackDevice != null && ackDevice.isReachable())
        {
            target = ackQueue;
        }
        else
        {
            // not the cached sender, or the cached one is gone: a restarted device keeps its id and QP numbers
            ShmQueueFile found = null;
            ShmRemoteDevice sender = null;
            try
            {
                sender = device.remote(srcDeviceId);
                found = sender.queue(srcQpn, scratch);
            }
            catch (final RuntimeException ignore)
            {
                // the sender's device is gone: nobody waits for this acknowledgement
            }
            ackDeviceId = srcDeviceId;
            ackQpn = srcQpn;
            ackQueue = found;
            ackDevice = sender;
            target = found;
        }
        if (target != null)
        {
            target.ack(psn, status.code());
        }
    }
}

package io.dkv.raas.cnc;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.ConnectionCredits;
import io.dkv.raas.OneSidedOperation;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.ReceivedMessage;
import io.dkv.raas.RemoteRegion;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * A logical connection held by a standalone driver on behalf of this client.
 */
final class AttachedConnection implements Connection
{
    private final AttachedRaas raas;
    private final Attachment attachment;
    private final ClientConductor conductor;
    private final ClientDataArea area;
    private final int vqpn;
    private final long nodeId;
    private final boolean messaging;
    private final CompletionHandler handler;
    private final ConnectionCredits credits = new ConnectionCredits();
    private volatile boolean closed;

    AttachedConnection(
        final AttachedRaas raas,
        final Attachment attachment,
        final int vqpn,
        final long nodeId,
        final boolean messaging,
        final CompletionHandler handler)
    {
        this.raas = raas;
        this.attachment = attachment;
        this.conductor = attachment.conductor();
        this.area = attachment.area();
        this.vqpn = vqpn;
        this.nodeId = nodeId;
        this.messaging = messaging;
        this.handler = handler;
    }

    public int vqpn()
    {
        return vqpn;
    }

    public long nodeId()
    {
        return nodeId;
    }

    public boolean isMessaging()
    {
        return messaging && !closed;
    }

    public int outstanding()
    {
        return credits.outstanding();
    }

    void onCompleted()
    {
        credits.release();
    }

    // ---- one-sided ----

    public long oneSided(
        final OneSidedOperation operation, final RemoteRegion region, final long offset, final MemorySegment local,
        final long localOffset, final int length, final long compareAdd, final long swap)
    {
        final int handle = refuseUnlessAllowed(operation, region, local, localOffset, length);
        final ClientSlot slot = acquireSlot(false, 0);
        submit(slot, operation, handle, offset, local, localOffset, length, compareAdd, swap);
        return finishSync(slot, operation, region, offset, length, local, localOffset);
    }

    public void oneSidedAsync(
        final OneSidedOperation operation, final RemoteRegion region, final long offset, final MemorySegment local,
        final long localOffset, final int length, final long compareAdd, final long swap, final long token)
    {
        final int handle = refuseUnlessAllowed(operation, region, local, localOffset, length);
        submit(acquireSlot(true, token), operation, handle, offset, local, localOffset, length, compareAdd, swap);
    }

    public void flush()
    {
        // this connection's completions come through its own attachment, whichever one the handle holds now
        conductor.poll();
    }

    /**
     * The checks a one-sided request passes before it takes a credit: the connection is open, the region
     * was obtained by this client, and the local buffer has the bytes. The driver checks the rest.
     *
     * @return the driver's handle of the region.
     * @throws RaasException saying why the request is refused.
     */
    private int refuseUnlessAllowed(
        final OneSidedOperation operation,
        final RemoteRegion region,
        final MemorySegment local,
        final long localOffset,
        final int length)
    {
        if (closed)
        {
            throw new RaasException(String.format("connection vQPN 0x%x is closed", vqpn));
        }
        conductor.requireLive();
        final int handle = attachment.handle(region);
        if (handle < 0)
        {
            throw new RaasException(String.format("%s of region '%s' refused: %s (obtain it with lookup or malloc " +
                "from driver '%s' (pid %d) once %s attached to it)", operation.opcode(), region.name(),
                RaasStatus.describe(RaasStatus.NOT_OWNED), attachment.driverName(), attachment.driverPid(),
                attachment.describe()));
        }
        if (local != null && (localOffset < 0 || localOffset > local.byteSize() - length))
        {
            throw new RaasException(
                "local buffer of " + local.byteSize() + " bytes has no " + length + " bytes at offset " + localOffset);
        }
        return handle;
    }

    /** A slot for a request, once the connection has a credit for it. */
    private ClientSlot acquireSlot(final boolean async, final long token)
    {
        final int limit = raas.connectionCredits();
        int spins = 0;
        while (!credits.tryAcquire(limit))
        {
            if (conductor.poll() == 0)
            {
                conductor.requireLive();
                conductor.awaitResponse(++spins);
            }
        }
        final ClientSlot slot = conductor.acquire();
        slot.async = async;
        slot.handler = handler;
        slot.userToken = token;
        slot.connection = async ? this : null;
        return slot;
    }

    /** Place the local bytes in the data area (unless they are there) and hand the request to the driver. */
    private void submit(
        final ClientSlot slot,
        final OneSidedOperation operation,
        final int handle,
        final long offset,
        final MemorySegment local,
        final long localOffset,
        final int length,
        final long compareAdd,
        final long swap)
    {
        slot.length = length;
        final long dataOffset = area.place(slot, local, localOffset, length);
        slot.dataOffset = dataOffset;
        if (local != null)
        {
            final boolean inPlace = area.isInPlace(local, localOffset, dataOffset);
            if (operation == OneSidedOperation.READ)
            {
                if (!inPlace)
                {
                    slot.copyBack = local;
                    slot.copyBackOffset = localOffset;
                }
            }
            else if (!inPlace)
            {
                MemorySegment.copy(local, localOffset, area.memory(), dataOffset, length);
            }
        }
        final OneSidedFlyweight command = conductor.claim(ONE_SIDED, ONE_SIDED_MESSAGE_LENGTH, slot, slot.oneSided)
            .vqpn(vqpn)
            .opcode(operation.opcode().code())
            .regionHandle(handle)
            .length(length)
            .remoteOffset(offset)
            .dataOffset(dataOffset)
            .compareAdd(compareAdd)
            .swap(swap);
        // marked before the commit: a driver found gone from now on fails it, or this thread finds it gone below
        slot.committed = true;
        conductor.commit(command);
        final String gone = conductor.gone();
        if (slot.async && gone != null && slot.finish())
        {
            // nobody answers a request committed to a gone driver: the caller hears it, and the handler does not
            conductor.release(slot);
            credits.release();
            throw new RaasException(operation + " of " + length + " bytes at offset " + offset + ": " + gone);
        }
    }

    private long finishSync(
        final ClientSlot slot,
        final OneSidedOperation operation,
        final RemoteRegion region,
        final long offset,
        final int length,
        final MemorySegment readInto,
        final long readOffset)
    {
        final String what =
            operation + " of " + length + " bytes at offset " + offset + " of region '" + region.name() + "'";
        try
        {
            conductor.await(slot, what);
        }
        finally
        {
            credits.release();
        }
        final int status = slot.status;
        final long value = slot.value;
        if (status == RaasStatus.SUCCESS && slot.copyBack != null)
        {
            MemorySegment.copy(area.memory(), slot.dataOffset, readInto, readOffset, length);
        }
        conductor.release(slot);
        if (status != RaasStatus.SUCCESS)
        {
            throw new RaasException(what + " failed: " + RaasStatus.describe(status));
        }
        return value;
    }

    // ---- two-sided ----

    public void send(final MemorySegment src, final long offset, final int length, final int flags)
    {
        requireMessaging();
        final ClientSlot slot = conductor.acquire();
        final long dataOffset = area.place(slot, src, offset, length);
        if (!area.isInPlace(src, offset, dataOffset))
        {
            MemorySegment.copy(src, offset, area.memory(), dataOffset, length);
        }
        conductor.commit(conductor.claim(SEND, SEND_MESSAGE_LENGTH, slot, new SendFlyweight())
            .vqpn(vqpn).flags(flags).length(length).dataOffset(dataOffset));
        conductor.await(slot, String.format("send of %d bytes on vQPN 0x%x", length, vqpn));
        conductor.release(slot);
    }

    public int recv(final MemorySegment dst, final long offset, final int maxLength, final Duration timeout)
    {
        final Received received = receive(maxLength, timeout);
        try
        {
            MemorySegment.copy(area.memory(), received.dataOffset, dst, offset, received.length);
            return received.length;
        }
        finally
        {
            conductor.release(received.slot);
        }
    }

    public ReceivedMessage recvZeroCopy(final Duration timeout)
    {
        final Received received = receive(raas.advertisedBytes(), timeout);
        final MemorySegment payload = area.memory().asSlice(received.dataOffset, received.length);
        return new ReceivedMessage()
        {
            private boolean released;

            public MemorySegment payload()
            {
                if (released)
                {
                    throw new RaasException("message was released");
                }
                return payload;
            }

            public void release()
            {
                if (!released)
                {
                    released = true;
                    conductor.release(received.slot);
                }
            }
        };
    }

    private record Received(ClientSlot slot, long dataOffset, int length)
    {
    }

    private Received receive(final int maxLength, final Duration timeout)
    {
        requireMessaging();
        final ClientSlot slot = conductor.acquire();
        final long dataOffset = area.place(slot, null, 0, maxLength);
        conductor.commit(conductor.claim(RECV, RECV_MESSAGE_LENGTH, slot, new RecvFlyweight())
            .vqpn(vqpn)
            .timeoutMs((int)Math.min(Integer.MAX_VALUE, timeout.toMillis()))
            .maxLength(maxLength)
            .dataOffset(dataOffset));
        conductor.awaitUntil(
            slot, String.format("receive on vQPN 0x%x", vqpn), conductor.deadlineAfter(timeout));
        return new Received(slot, dataOffset, (int)slot.value);
    }

    private void requireMessaging()
    {
        if (!isMessaging())
        {
            throw new RaasException(String.format("connection vQPN 0x%x to node %d carries no messages", vqpn, nodeId));
        }
    }

    public boolean isReadable()
    {
        if (!isMessaging())
        {
            return closed;
        }
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(READABLE, TARGET_LENGTH, slot, new TargetFlyweight()).targetId(vqpn));
        conductor.await(slot, String.format("readiness of vQPN 0x%x", vqpn));
        final boolean readable = slot.value != 0;
        conductor.release(slot);
        return readable;
    }

    public void close()
    {
        if (!closed)
        {
            closed = true;
            // a connection of a driver that went is gone with it: nothing to tell the driver under the name now
            attachment.closeConnection(vqpn);
        }
    }
}

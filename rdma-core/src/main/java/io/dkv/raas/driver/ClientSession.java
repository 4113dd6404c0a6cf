package io.dkv.raas.driver;

import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.cnc.CncDescriptor;
import io.dkv.verbs.MemoryRegion;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * What a standalone driver holds for one attached client: its mapped file (response ring and data
 * area, the data area registered once), and the connections, listeners and regions it obtained,
 * which the driver frees when the client closes or dies. Only regions the client obtained can be
 * named in its requests: they are addressed by handle.
 */
final class ClientSession
{
    final long clientId;
    final long pid;
    final Path file;
    private final Arena arena;
    private final MemorySegment mapping;
    private final UnsafeBuffer header;
    private final ManyToOneRingBuffer responses;
    final MemorySegment data;
    final MemoryRegion dataRegion;
    final Int2ObjectHashMap<DriverConnection> connections = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<Listener> listeners = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<RemoteRegion> regions = new Int2ObjectHashMap<>();
    final Int2ObjectHashMap<RemoteRegion> allocated = new Int2ObjectHashMap<>();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[ERROR_MESSAGE_OFFSET + MAX_ERROR_LENGTH + 256]);
    private int nextHandle = 1;
    long lastHeartbeat;
    volatile boolean closed;

    ClientSession(final Registrations registrations, final long clientId, final Path file, final Arena arena, final MemorySegment mapping)
    {
        this.clientId = clientId;
        this.file = file;
        this.arena = arena;
        this.mapping = mapping;
        this.header = new UnsafeBuffer(mapping.address(), CncDescriptor.CLIENT_HEADER_LENGTH);
        this.pid = header.getLong(CncDescriptor.CLIENT_PID_OFFSET);
        final int responseLength = header.getInt(CncDescriptor.RESPONSE_LENGTH_OFFSET);
        final int dataLength = header.getInt(CncDescriptor.DATA_LENGTH_OFFSET);
        this.responses = new ManyToOneRingBuffer(new UnsafeBuffer(
            mapping.address() + CncDescriptor.CLIENT_HEADER_LENGTH, responseLength + RingBufferDescriptor.TRAILER_LENGTH));
        this.data = mapping.asSlice(CncDescriptor.dataOffset(responseLength), dataLength);
        this.dataRegion = registrations.registerPinned(data);
        this.lastHeartbeat = heartbeat();
    }

    long heartbeat()
    {
        return header.getLongVolatile(CncDescriptor.CLIENT_HEARTBEAT_OFFSET);
    }

    MemorySegment mapping()
    {
        return mapping;
    }

    boolean inData(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && offset <= data.byteSize() - length;
    }

    int addRegion(final RemoteRegion region)
    {
        final int handle = nextHandle++;
        regions.put(handle, region);
        return handle;
    }

    // ---- responses: written by the conductor, completion handlers and blocking-call threads ----

    void ok(final long correlation, final long value, final long value2)
    {
        final int index = claim(RSP_OK, OK_LENGTH);
        if (index < 0)
        {
            return;
        }
        final var buffer = responses.buffer();
        buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(index + CORRELATION_OFFSET, correlation);
        buffer.putLong(index + OK_VALUE_OFFSET, value);
        buffer.putLong(index + OK_VALUE2_OFFSET, value2);
        responses.commit(index);
    }

    void completion(final long correlation, final int status, final long value)
    {
        final int index = claim(RSP_COMPLETION, COMPLETION_LENGTH);
        if (index < 0)
        {
            return;
        }
        final var buffer = responses.buffer();
        buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(index + CORRELATION_OFFSET, correlation);
        buffer.putInt(index + COMPLETION_STATUS_OFFSET, status);
        buffer.putLong(index + COMPLETION_VALUE_OFFSET, value);
        responses.commit(index);
    }

    void error(final long correlation, final String message)
    {
        final byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(bytes.length, MAX_ERROR_LENGTH);
        final int index = claim(RSP_ERROR, ERROR_MESSAGE_OFFSET + length);
        if (index < 0)
        {
            return;
        }
        final var buffer = responses.buffer();
        buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(index + CORRELATION_OFFSET, correlation);
        buffer.putInt(index + ERROR_MESSAGE_LENGTH_OFFSET, length);
        buffer.putBytes(index + ERROR_MESSAGE_OFFSET, bytes, 0, length);
        responses.commit(index);
    }

    void region(final long correlation, final int handle, final RemoteRegion region)
    {
        final byte[] name = region.name().getBytes(StandardCharsets.UTF_8);
        final int index = claim(RSP_REGION, REGION_NAME_OFFSET + name.length);
        if (index < 0)
        {
            return;
        }
        final var buffer = responses.buffer();
        buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(index + CORRELATION_OFFSET, correlation);
        buffer.putInt(index + REGION_HANDLE_OFFSET, handle);
        buffer.putInt(index + REGION_RKEY_OFFSET, region.rkey());
        buffer.putLong(index + REGION_NODE_OFFSET, region.nodeId());
        buffer.putLong(index + REGION_EPOCH_OFFSET, region.nodeEpoch());
        buffer.putLong(index + REGION_ADDRESS_OFFSET, region.address());
        buffer.putLong(index + REGION_LENGTH_OFFSET, region.length());
        buffer.putInt(index + REGION_ACCESS_OFFSET, region.access());
        buffer.putInt(index + REGION_LAYOUT_OFFSET, region.layoutVersion());
        buffer.putInt(index + REGION_NAME_LENGTH_OFFSET, name.length);
        buffer.putBytes(index + REGION_NAME_OFFSET, name);
        responses.commit(index);
    }

    void ready(final long correlation, final io.dkv.raas.NodeRecord self)
    {
        final byte[] address = self.address().bytes();
        final byte[] provider = self.address().provider().getBytes(StandardCharsets.UTF_8);
        final int index = claim(RSP_CLIENT_READY, READY_ADDRESS_OFFSET + address.length + provider.length);
        if (index < 0)
        {
            return;
        }
        final var buffer = responses.buffer();
        buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
        buffer.putLong(index + CORRELATION_OFFSET, correlation);
        buffer.putLong(index + READY_NODE_OFFSET, self.id());
        buffer.putInt(index + READY_ROLE_OFFSET, self.role());
        buffer.putInt(index + READY_DCT_OFFSET, self.dctNumber());
        buffer.putLong(index + READY_DC_KEY_OFFSET, self.dcKey());
        buffer.putLong(index + READY_EPOCH_OFFSET, self.epoch());
        buffer.putInt(index + READY_ADDRESS_LENGTH_OFFSET, address.length);
        buffer.putInt(index + READY_PROVIDER_LENGTH_OFFSET, provider.length);
        buffer.putBytes(index + READY_ADDRESS_OFFSET, address);
        buffer.putBytes(index + READY_ADDRESS_OFFSET + address.length, provider);
        responses.commit(index);
    }

    /**
     * Room for a response; a client that stopped reading its responses cannot make the driver
     * wait: after a short while the response is dropped (the client will time out and be removed).
     */
    private int claim(final int type, final int length)
    {
        if (closed)
        {
            return -1;
        }
        for (int attempt = 0; attempt < 100_000; attempt++)
        {
            final int index = responses.tryClaim(type, length);
            if (index >= 0)
            {
                return index;
            }
            Thread.onSpinWait();
        }
        return -1;
    }

    void markClosed()
    {
        closed = true;
        header.putIntVolatile(CncDescriptor.CLIENT_CLOSED_OFFSET, 1);
    }

    void release(final Registrations registrations)
    {
        registrations.deregisterPinned(dataRegion);
        arena.close();
    }

    UnsafeBuffer scratch()
    {
        return scratch;
    }

    Connection connection(final int vqpn)
    {
        return connections.get(vqpn);
    }

    public String toString()
    {
        return String.format("client %016x (pid %d)", clientId, pid);
    }
}

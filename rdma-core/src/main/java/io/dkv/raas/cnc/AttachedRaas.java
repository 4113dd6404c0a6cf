package io.dkv.raas.cnc;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Listener;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.PortAddress;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * An application's handle on a standalone driver. Commands go into the driver's command ring;
 * responses and completions come back through this client's own ring, and the bytes of requests
 * through its data area, which the driver registered once: a one-sided request costs two ring
 * messages and no copy when its buffer came from {@link #allocateBuffer}. The client notices a
 * dead driver by its heartbeat and fails its calls, saying so.
 */
public final class AttachedRaas implements Raas, MessageHandler
{
    static final int CHUNK_BYTES = 256;
    private static final long HEARTBEAT_INTERVAL_MS = 100;

    final RaasContext context;
    private final String driverName;
    private final long clientId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    private final Arena arena = Arena.ofShared();
    private final UnsafeBuffer cnc;
    private final ManyToOneRingBuffer commands;
    private final Path clientFile;
    private final UnsafeBuffer clientHeader;
    private final ManyToOneRingBuffer responses;
    final MemorySegment data;
    final ClientDataArea area;
    private final ClientSlot[] slots;
    private final ManyToManyConcurrentArrayQueue<ClientSlot> freeSlots;
    private final AtomicBoolean polling = new AtomicBoolean();
    private final Thread heartbeat;
    private final NodeRecord self;
    private volatile boolean closed;

    private AttachedRaas(final RaasContext context)
    {
        this.context = context;
        this.driverName = context.driverName();
        final Path directory = CncDescriptor.driverDirectory(context.cncDirectory(), context.driverName());
        final Path cncFile = directory.resolve(CncDescriptor.CNC_FILE);
        if (!Files.exists(cncFile))
        {
            throw new RaasException("no standalone driver named '" + driverName + "' runs on this host (no " + cncFile +
                "); start one with ./dkv driver");
        }
        try (FileChannel channel = FileChannel.open(cncFile, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            cnc = new UnsafeBuffer(mapping.address(), CncDescriptor.CNC_HEADER_LENGTH);
            if (cnc.getLongVolatile(CncDescriptor.MAGIC_OFFSET) != CncDescriptor.CNC_MAGIC ||
                cnc.getInt(CncDescriptor.VERSION_OFFSET) != CncDescriptor.VERSION)
            {
                throw new RaasException(cncFile + " is not a command-and-control file of this version");
            }
            final int ringLength = cnc.getInt(CncDescriptor.TO_DRIVER_LENGTH_OFFSET);
            commands = new ManyToOneRingBuffer(new UnsafeBuffer(
                mapping.address() + CncDescriptor.CNC_HEADER_LENGTH, ringLength + RingBufferDescriptor.TRAILER_LENGTH));
        }
        catch (final IOException ex)
        {
            arena.close();
            throw new RaasException("cannot map " + cncFile + ": " + ex, ex);
        }
        requireDriver();

        final int responseLength = context.commandRingBytes();
        final int slotCount = context.requestSlots();
        final long chunks = (long)slotCount * CHUNK_BYTES;
        final int dataLength = (int)Math.max(context.clientDataBytes(), chunks * 2);
        clientFile = directory.resolve(CncDescriptor.clientFileName(clientId));
        final MemorySegment mapping;
        try (FileChannel channel = FileChannel.open(clientFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            final long length = CncDescriptor.clientLength(responseLength, dataLength);
            channel.truncate(length);
            mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, length, arena);
        }
        catch (final IOException ex)
        {
            arena.close();
            throw new RaasException("cannot create client file " + clientFile + ": " + ex, ex);
        }
        clientHeader = new UnsafeBuffer(mapping.address(), CncDescriptor.CLIENT_HEADER_LENGTH);
        clientHeader.putLong(CncDescriptor.CLIENT_ID_OFFSET, clientId);
        clientHeader.putLong(CncDescriptor.CLIENT_PID_OFFSET, ProcessHandle.current().pid());
        clientHeader.putLong(CncDescriptor.CLIENT_HEARTBEAT_OFFSET, System.currentTimeMillis());
        clientHeader.putInt(CncDescriptor.RESPONSE_LENGTH_OFFSET, responseLength);
        clientHeader.putInt(CncDescriptor.DATA_LENGTH_OFFSET, dataLength);
        clientHeader.putLongOrdered(CncDescriptor.MAGIC_OFFSET, CncDescriptor.CLIENT_MAGIC);
        responses = new ManyToOneRingBuffer(new UnsafeBuffer(
            mapping.address() + CncDescriptor.CLIENT_HEADER_LENGTH, responseLength + RingBufferDescriptor.TRAILER_LENGTH));
        data = mapping.asSlice(CncDescriptor.dataOffset(responseLength), dataLength);
        area = new ClientDataArea(chunks, dataLength - chunks);

        slots = new ClientSlot[slotCount];
        freeSlots = new ManyToManyConcurrentArrayQueue<>(org.agrona.BitUtil.findNextPositivePowerOfTwo(slotCount));
        for (int i = 0; i < slotCount; i++)
        {
            slots[i] = new ClientSlot(i, (long)i * CHUNK_BYTES);
            freeSlots.offer(slots[i]);
        }

        heartbeat = Thread.ofPlatform().daemon().name("dkv-raas-client-heartbeat").start(this::beat);
        final ClientSlot slot = acquire();
        final int index = claim(ADD_CLIENT, BODY_OFFSET, slot);
        commit(index);
        try
        {
            await(slot, "attach to driver '" + driverName + "'");
        }
        catch (final RuntimeException ex)
        {
            closeQuietly();
            throw ex;
        }
        self = slot.ready;
        release(slot);
    }

    public static AttachedRaas attach(final RaasContext context)
    {
        return new AttachedRaas(context.conclude());
    }

    private void beat()
    {
        while (!closed)
        {
            clientHeader.putLongOrdered(CncDescriptor.CLIENT_HEARTBEAT_OFFSET, System.currentTimeMillis());
            try
            {
                Thread.sleep(HEARTBEAT_INTERVAL_MS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    /**
     * @throws RaasException when the driver closed or stopped heartbeating.
     */
    void requireDriver()
    {
        if (cnc.getIntVolatile(CncDescriptor.CLOSED_OFFSET) != 0)
        {
            throw new RaasException("standalone driver '" + driverName + "' (pid " + cnc.getLong(CncDescriptor.DRIVER_PID_OFFSET) +
                ") has shut down");
        }
        final long silent = System.currentTimeMillis() - cnc.getLongVolatile(CncDescriptor.HEARTBEAT_OFFSET);
        if (silent > context.driverTimeoutMs())
        {
            throw new RaasException("standalone driver '" + driverName + "' (pid " + cnc.getLong(CncDescriptor.DRIVER_PID_OFFSET) +
                ") has not been alive for " + silent + " ms");
        }
        if (clientHeader != null && clientHeader.getIntVolatile(CncDescriptor.CLIENT_CLOSED_OFFSET) != 0)
        {
            throw new RaasException("standalone driver '" + driverName + "' removed this client");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // slots, commands, responses

    ClientSlot acquire()
    {
        ClientSlot slot;
        int spins = 0;
        while ((slot = freeSlots.poll()) == null)
        {
            if (poll() == 0)
            {
                idle(++spins);
            }
        }
        slot.reset();
        return slot;
    }

    void release(final ClientSlot slot)
    {
        if (slot.block >= 0)
        {
            area.release(slot.block);
            slot.block = -1;
        }
        slot.handler = null;
        slot.connection = null;
        slot.copyBack = null;
        freeSlots.offer(slot);
    }

    /**
     * Room for a command in the driver's ring, with the client id and the slot's correlation id
     * written.
     *
     * @return the index to write the body at (relative to the ring buffer).
     */
    int claim(final int type, final int length, final ClientSlot slot)
    {
        int spins = 0;
        while (true)
        {
            final int index = commands.tryClaim(type, length);
            if (index >= 0)
            {
                final MutableDirectBuffer buffer = commands.buffer();
                buffer.putLong(index + CLIENT_ID_OFFSET, clientId);
                buffer.putLong(index + CORRELATION_OFFSET, slot.correlation());
                return index;
            }
            requireOpen();
            requireDriver();
            idle(++spins);
        }
    }

    MutableDirectBuffer commandBuffer()
    {
        return commands.buffer();
    }

    void commit(final int index)
    {
        commands.commit(index);
    }

    /**
     * Wait for a command's response, reading responses meanwhile.
     *
     * @throws RaasException with the driver's message when the command failed.
     */
    void await(final ClientSlot slot, final String what)
    {
        final long deadline = System.nanoTime() + context.timeoutMs() * 1_000_000L;
        awaitUntil(slot, what, deadline);
    }

    void awaitUntil(final ClientSlot slot, final String what, final long deadline)
    {
        int spins = 0;
        while (!slot.done)
        {
            if (poll() == 0)
            {
                idle(++spins);
                if ((spins & 255) == 0)
                {
                    requireDriver();
                    if (System.nanoTime() > deadline)
                    {
                        throw new RaasException(what + ": no answer from driver '" + driverName + "' within " +
                            (context.timeoutMs()) + " ms");
                    }
                }
            }
        }
        if (slot.error != null)
        {
            final String error = slot.error;
            release(slot);
            throw new RaasException(what + ": " + error);
        }
    }

    static void idle(final int spins)
    {
        if (spins < 64)
        {
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    public int poll()
    {
        if (!polling.compareAndSet(false, true))
        {
            return 0;
        }
        try
        {
            return responses.read(this, 64);
        }
        finally
        {
            polling.set(false);
        }
    }

    public void onMessage(final int type, final MutableDirectBuffer buffer, final int index, final int length)
    {
        final long correlation = buffer.getLong(index + CORRELATION_OFFSET);
        final int slotIndex = (int)correlation;
        if (slotIndex < 0 || slotIndex >= slots.length)
        {
            return;
        }
        final ClientSlot slot = slots[slotIndex];
        if (slot.generation != (int)(correlation >>> 32) || slot.done)
        {
            return;
        }
        switch (type)
        {
            case RSP_OK ->
            {
                slot.value = buffer.getLong(index + OK_VALUE_OFFSET);
                slot.value2 = buffer.getLong(index + OK_VALUE2_OFFSET);
            }
            case RSP_ERROR ->
            {
                final int messageLength = Math.min(buffer.getInt(index + ERROR_MESSAGE_LENGTH_OFFSET), length - ERROR_MESSAGE_OFFSET);
                final byte[] bytes = new byte[Math.max(0, messageLength)];
                buffer.getBytes(index + ERROR_MESSAGE_OFFSET, bytes);
                slot.error = new String(bytes, StandardCharsets.UTF_8);
                slot.status = RaasStatus.UNREACHABLE;
            }
            case RSP_COMPLETION ->
            {
                slot.status = buffer.getInt(index + COMPLETION_STATUS_OFFSET);
                slot.value = buffer.getLong(index + COMPLETION_VALUE_OFFSET);
                if (slot.async)
                {
                    completeAsync(slot);
                    return;
                }
            }
            case RSP_REGION ->
            {
                final int nameLength = buffer.getInt(index + REGION_NAME_LENGTH_OFFSET);
                final byte[] name = new byte[nameLength];
                buffer.getBytes(index + REGION_NAME_OFFSET, name);
                slot.regionHandle = buffer.getInt(index + REGION_HANDLE_OFFSET);
                slot.region = new RemoteRegion(new String(name, StandardCharsets.UTF_8), buffer.getLong(index + REGION_NODE_OFFSET),
                    buffer.getLong(index + REGION_EPOCH_OFFSET), buffer.getLong(index + REGION_ADDRESS_OFFSET),
                    buffer.getInt(index + REGION_RKEY_OFFSET), buffer.getLong(index + REGION_LENGTH_OFFSET),
                    buffer.getInt(index + REGION_ACCESS_OFFSET), buffer.getInt(index + REGION_LAYOUT_OFFSET));
            }
            case RSP_CLIENT_READY ->
            {
                final int addressLength = buffer.getInt(index + READY_ADDRESS_LENGTH_OFFSET);
                final int providerLength = buffer.getInt(index + READY_PROVIDER_LENGTH_OFFSET);
                final byte[] address = new byte[addressLength];
                final byte[] provider = new byte[providerLength];
                buffer.getBytes(index + READY_ADDRESS_OFFSET, address);
                buffer.getBytes(index + READY_ADDRESS_OFFSET + addressLength, provider);
                slot.ready = new NodeRecord(buffer.getLong(index + READY_NODE_OFFSET), buffer.getInt(index + READY_ROLE_OFFSET),
                    PortAddress.of(new String(provider, StandardCharsets.UTF_8), address), buffer.getInt(index + READY_DCT_OFFSET),
                    buffer.getLong(index + READY_DC_KEY_OFFSET), buffer.getLong(index + READY_EPOCH_OFFSET), 0);
            }
            default ->
            {
                return;
            }
        }
        slot.done = true;
    }

    private void completeAsync(final ClientSlot slot)
    {
        if (slot.status == RaasStatus.SUCCESS && slot.copyBack != null)
        {
            MemorySegment.copy(data, slot.dataOffset, slot.copyBack, slot.copyBackOffset, slot.length);
        }
        final CompletionHandler handler = slot.handler;
        final long token = slot.userToken;
        final int status = slot.status;
        final long value = slot.value;
        final AttachedConnection connection = slot.connection;
        release(slot);
        if (connection != null)
        {
            connection.onCompleted();
        }
        if (handler != null)
        {
            handler.onCompletion(token, status, value);
        }
    }

    /**
     * Where a transfer of {@code length} bytes from or into {@code segment} lives in the data area:
     * the segment itself when it is a buffer from {@link #allocateBuffer} (no copy), the slot's chunk
     * when small, else a block allocated for the request.
     *
     * @return the data-area offset; {@code slot.copyBack} is left for the caller to set.
     */
    long placeData(final ClientSlot slot, final MemorySegment segment, final long segmentOffset, final int length)
    {
        if (segment != null && segment.isNative())
        {
            final long address = segment.address() + segmentOffset;
            if (address >= data.address() && address - data.address() <= data.byteSize() - length)
            {
                return address - data.address();
            }
        }
        if (length <= CHUNK_BYTES)
        {
            return slot.chunkOffset;
        }
        final long block = area.allocate(length);
        if (block < 0)
        {
            throw new RaasException("the client data area of " + data.byteSize() + " bytes has no room for " + length +
                " more bytes (dkv.raas.client.data.bytes)");
        }
        slot.block = block;
        return block;
    }

    private void requireOpen()
    {
        if (closed)
        {
            throw new RaasException("this attachment to driver '" + driverName + "' is closed");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Raas

    public NodeRecord self()
    {
        return self;
    }

    public Connection open(final long nodeId, final CompletionHandler handler)
    {
        final ClientSlot slot = acquire();
        final int index = claim(OPEN, OPEN_LENGTH, slot);
        commandBuffer().putLong(index + OPEN_NODE_OFFSET, nodeId);
        commit(index);
        await(slot, "open a connection to node " + nodeId);
        final int vqpn = (int)slot.value;
        release(slot);
        return new AttachedConnection(this, vqpn, nodeId, false, handler);
    }

    public Connection connect(final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        io.dkv.raas.Flags.validate(flags);
        final ClientSlot slot = acquire();
        final int index = claim(CONNECT, CONNECT_LENGTH, slot);
        commandBuffer().putLong(index + CONNECT_NODE_OFFSET, nodeId);
        commandBuffer().putInt(index + CONNECT_SERVICE_OFFSET, service);
        commandBuffer().putInt(index + CONNECT_FLAGS_OFFSET, flags);
        commit(index);
        await(slot, "connect to service " + service + " of node " + nodeId);
        final int vqpn = (int)slot.value;
        release(slot);
        return new AttachedConnection(this, vqpn, nodeId, true, handler);
    }

    public Listener listen(final int service)
    {
        final ClientSlot slot = acquire();
        final int index = claim(LISTEN, LISTEN_LENGTH, slot);
        commandBuffer().putInt(index + LISTEN_SERVICE_OFFSET, service);
        commit(index);
        await(slot, "listen on service " + service);
        release(slot);
        return new AttachedListener(this, service);
    }

    public RemoteRegion malloc(final long nodeId, final long size, final String name, final int access)
    {
        final byte[] bytes = name(name);
        final ClientSlot slot = acquire();
        final int index = claim(MALLOC, MALLOC_NAME_OFFSET + bytes.length, slot);
        final MutableDirectBuffer buffer = commandBuffer();
        buffer.putLong(index + MALLOC_NODE_OFFSET, nodeId);
        buffer.putLong(index + MALLOC_SIZE_OFFSET, size);
        buffer.putInt(index + MALLOC_ACCESS_OFFSET, access);
        buffer.putInt(index + MALLOC_NAME_LENGTH_OFFSET, bytes.length);
        buffer.putBytes(index + MALLOC_NAME_OFFSET, bytes);
        commit(index);
        await(slot, "malloc of " + size + " bytes named '" + name + "' on node " + nodeId);
        return remember(slot);
    }

    public List<NodeRecord> nodes(final int role)
    {
        throw new RaasException("a client attached to driver '" + driverName + "' cannot list nodes yet: give it the " +
            "nodes' ids");
    }

    public RemoteRegion lookup(final String name)
    {
        final byte[] bytes = name(name);
        final ClientSlot slot = acquire();
        final int index = claim(LOOKUP, LOOKUP_NAME_OFFSET + bytes.length, slot);
        commandBuffer().putInt(index + LOOKUP_NAME_LENGTH_OFFSET, bytes.length);
        commandBuffer().putBytes(index + LOOKUP_NAME_OFFSET, bytes);
        commit(index);
        await(slot, "lookup of region '" + name + "'");
        return remember(slot);
    }

    private final java.util.concurrent.ConcurrentHashMap<RemoteRegion, Integer> handles = new java.util.concurrent.ConcurrentHashMap<>();

    private RemoteRegion remember(final ClientSlot slot)
    {
        final RemoteRegion region = slot.region;
        handles.put(region, slot.regionHandle);
        release(slot);
        return region;
    }

    /** @return the driver's handle for a region this client obtained, or -1. */
    int handle(final RemoteRegion region)
    {
        final Integer handle = handles.get(region);
        return handle == null ? -1 : handle;
    }

    private static byte[] name(final String name)
    {
        final byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_NAME_LENGTH)
        {
            throw new RaasException("region name of " + bytes.length + " bytes exceeds " + MAX_NAME_LENGTH);
        }
        return bytes;
    }

    public void free(final RemoteRegion region)
    {
        final int handle = handle(region);
        if (handle < 0)
        {
            throw new RaasException("region '" + region.name() + "' was not obtained by this client");
        }
        final ClientSlot slot = acquire();
        final int index = claim(FREE, FREE_LENGTH, slot);
        commandBuffer().putInt(index + FREE_REGION_OFFSET, handle);
        commit(index);
        await(slot, "free of region '" + region.name() + "'");
        handles.remove(region);
        release(slot);
    }

    public MemorySegment localMemory(final RemoteRegion region)
    {
        throw new RaasException("region '" + region.name() + "' lives in the standalone driver's process; reach it through a " +
            "connection to node " + region.nodeId());
    }

    public MemorySegment allocateBuffer(final int size)
    {
        final long block = area.allocate(size);
        if (block < 0)
        {
            throw new RaasException("the client data area of " + data.byteSize() + " bytes has no room for a " + size +
                "-byte buffer (dkv.raas.client.data.bytes)");
        }
        return data.asSlice(block, size);
    }

    void closeConnection(final int vqpn)
    {
        final ClientSlot slot = acquire();
        final int index = claim(CLOSE_CONNECTION, CLOSE_LENGTH, slot);
        commandBuffer().putInt(index + CLOSE_ID_OFFSET, vqpn);
        commit(index);
        await(slot, String.format("close of vQPN 0x%x", vqpn));
        release(slot);
    }

    void closeListener(final int service)
    {
        final ClientSlot slot = acquire();
        final int index = claim(CLOSE_LISTENER, CLOSE_LENGTH, slot);
        commandBuffer().putInt(index + CLOSE_ID_OFFSET, service);
        commit(index);
        await(slot, "close of the listener on service " + service);
        release(slot);
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            final ClientSlot slot = acquire();
            final int index = claim(REMOVE_CLIENT, BODY_OFFSET, slot);
            commit(index);
        }
        catch (final RaasException driverGone)
        {
            // nothing to tell a dead driver
        }
        closeQuietly();
    }

    private void closeQuietly()
    {
        closed = true;
        heartbeat.interrupt();
        try
        {
            heartbeat.join(1000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        try
        {
            Files.deleteIfExists(clientFile);
        }
        catch (final IOException ignore)
        {
            // the driver removes it when it notices this client gone
        }
        arena.close();
    }
}

package io.dkv.raas.cnc;

import io.dkv.raas.CompletionHandler;
import io.dkv.raas.Connection;
import io.dkv.raas.Flags;
import io.dkv.raas.Listener;
import io.dkv.raas.Membership;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.Raas;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.ServiceClass;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * An application's handle on a standalone driver. Commands go into the driver's command ring;
 * responses and completions come back through this client's own ring, and the bytes of requests
 * through its data area, which the driver registered once: a one-sided request costs two ring
 * messages and no copy when its buffer came from {@link #allocateBuffer}. The client notices a
 * dead driver by its heartbeat and fails its calls, saying so.
 */
public final class AttachedRaas implements Raas
{
    /** How long closing waits for threads still inside calls to leave before it unmaps the files. */
    private static final long QUIESCE_NANOS = 2_000_000_000L;

    private static final long HEARTBEAT_INTERVAL_MS = 100;

    private final RaasContext context;
    private final EpochClock heartbeatClock;
    private final ClientConductor conductor;
    private final ClientDataArea area;
    private final String driverName;
    private final long clientId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    private final Arena arena = Arena.ofShared();
    private final Path clientFile;
    private final ClientHeaderFlyweight clientHeader;
    private final Thread heartbeat;
    private final NodeRecord self;
    /** The driver's handle of each region this client obtained, which its requests name the region by. */
    private final ConcurrentHashMap<RemoteRegion, Integer> handles = new ConcurrentHashMap<>();

    private AttachedRaas(final RaasContext context)
    {
        this.context = context;
        // heartbeats, the driver's and this client's, are in the host's monotonic time
        this.heartbeatClock = CncDescriptor.heartbeatClock(context.nanoClock());
        this.driverName = context.driverName();
        final Path directory = CncDescriptor.driverDirectory(context.cncDirectory(), context.driverName());
        final Path cncFile = directory.resolve(CncDescriptor.CNC_FILE);
        if (!Files.exists(cncFile))
        {
            throw new RaasException("no standalone driver named '" + driverName + "' runs on this host (no " +
                cncFile + "); start one with ./dkv driver");
        }
        final CncHeaderFlyweight cnc = new CncHeaderFlyweight();
        final ManyToOneRingBuffer commands;
        try (FileChannel channel = FileChannel.open(cncFile, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            cnc.wrap(new UnsafeBuffer(mapping.address(), CncDescriptor.CNC_HEADER_LENGTH));
            if (!cnc.isReady())
            {
                throw new RaasException(cncFile + " is not a command-and-control file of this version");
            }
            commands = ring(mapping, CncDescriptor.CNC_HEADER_LENGTH, cnc.toDriverLength());
        }
        catch (final IOException ex)
        {
            arena.close();
            throw new RaasException("cannot map " + cncFile + ": " + ex, ex);
        }
        ClientConductor.requireDriver(cnc, driverName, context.driverTimeoutMs(), heartbeatClock);

        final int responseLength = context.commandRingBytes();
        final long chunks = (long)context.requestSlots() * ClientDataArea.CHUNK_BYTES;
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
        clientHeader = new ClientHeaderFlyweight()
            .wrap(new UnsafeBuffer(mapping.address(), CncDescriptor.CLIENT_HEADER_LENGTH))
            .clientId(clientId)
            .pid(ProcessHandle.current().pid())
            .heartbeat(heartbeatClock.time())
            .responseLength(responseLength)
            .dataLength(dataLength)
            .publish();
        area = new ClientDataArea(mapping.asSlice(CncDescriptor.dataOffset(responseLength), dataLength), chunks);
        conductor = new ClientConductor(clientId, driverName, context.timeoutMs(), context.driverTimeoutMs(),
            heartbeatClock, context.nanoClock(), cnc, clientHeader, commands,
            ring(mapping, CncDescriptor.CLIENT_HEADER_LENGTH, responseLength), area, context.requestSlots());

        heartbeat = Thread.ofPlatform().daemon().name("dkv-raas-client-heartbeat").start(this::beat);
        final ClientSlot slot = conductor.acquire();
        final ServiceClass serviceClass = context.clientClass();
        conductor.commit(conductor.claim(ADD_CLIENT, CommandDescriptor.ATTACH_LENGTH, slot, new AttachFlyweight())
            .serviceClass(serviceClass == null ? 0 : serviceClass.code())
            .weight(context.clientWeight()));
        try
        {
            conductor.await(slot, "attach to driver '" + driverName + "'");
        }
        catch (final RuntimeException ex)
        {
            closeQuietly();
            throw ex;
        }
        self = slot.ready;
        conductor.release(slot);
    }

    public static AttachedRaas attach(final RaasContext context)
    {
        return new AttachedRaas(context.conclude());
    }

    private static ManyToOneRingBuffer ring(final MemorySegment mapping, final int offset, final int length)
    {
        return new ManyToOneRingBuffer(
            new UnsafeBuffer(mapping.address() + offset, length + RingBufferDescriptor.TRAILER_LENGTH));
    }

    private void beat()
    {
        while (!conductor.isClosed())
        {
            clientHeader.heartbeat(heartbeatClock.time());
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

    // ---------------------------------------------------------------------------------------------
    // Raas

    public NodeRecord self()
    {
        return self;
    }

    public NanoClock nanoClock()
    {
        return context.nanoClock();
    }

    public Connection open(final long nodeId, final CompletionHandler handler)
    {
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(OPEN, OPEN_LENGTH, slot, new OpenFlyweight()).nodeId(nodeId));
        conductor.await(slot, "open a connection to node " + nodeId);
        final int vqpn = (int)slot.value;
        conductor.release(slot);
        return connection(vqpn, nodeId, false, handler);
    }

    public Connection connect(final long nodeId, final int service, final int flags, final CompletionHandler handler)
    {
        Flags.validate(flags);
        final ClientSlot slot = conductor.acquire();
        final ConnectFlyweight command = conductor.claim(CONNECT, CONNECT_LENGTH, slot, new ConnectFlyweight());
        conductor.commit(command.nodeId(nodeId).service(service).flags(flags));
        conductor.await(slot, "connect to service " + service + " of node " + nodeId);
        final int vqpn = (int)slot.value;
        conductor.release(slot);
        return connection(vqpn, nodeId, true, handler);
    }

    public Listener listen(final int service)
    {
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(LISTEN, LISTEN_LENGTH, slot, new ListenFlyweight()).service(service));
        conductor.await(slot, "listen on service " + service);
        conductor.release(slot);
        return new AttachedListener(this, conductor, service);
    }

    public RemoteRegion malloc(final long nodeId, final long size, final String name, final int access)
    {
        final byte[] bytes = name(name);
        final ClientSlot slot = conductor.acquire();
        final MallocFlyweight command =
            conductor.claim(MALLOC, MallocFlyweight.length(bytes.length), slot, new MallocFlyweight());
        conductor.commit(command.nodeId(nodeId).size(size).access(access).name(bytes));
        conductor.await(slot, "malloc of " + size + " bytes named '" + name + "' on node " + nodeId);
        return remember(slot);
    }

    public List<NodeRecord> nodes(final int role)
    {
        throw new RaasException("a client attached to driver '" + driverName + "' cannot list nodes yet: give it the " +
            "nodes' ids");
    }

    public Membership membership()
    {
        final ClientSlot slot = conductor.acquire();
        final int maxLength = MembershipFlyweight.MAX_DATA_LENGTH;
        final long dataOffset = area.place(slot, null, 0, maxLength);
        conductor.commit(conductor.claim(MEMBERSHIP, MEMBERSHIP_LENGTH, slot, new MembershipFlyweight())
            .maxLength(maxLength)
            .dataOffset(dataOffset));
        conductor.await(slot, "the membership");
        try
        {
            return MembershipFlyweight.decode(area.memory(), dataOffset, (int)slot.value);
        }
        finally
        {
            conductor.release(slot);
        }
    }

    public RemoteRegion lookup(final String name)
    {
        final byte[] bytes = name(name);
        final ClientSlot slot = conductor.acquire();
        final LookupFlyweight command =
            conductor.claim(LOOKUP, LookupFlyweight.length(bytes.length), slot, new LookupFlyweight());
        conductor.commit(command.name(bytes));
        conductor.await(slot, "lookup of region '" + name + "'");
        return remember(slot);
    }

    private RemoteRegion remember(final ClientSlot slot)
    {
        final RemoteRegion region = slot.region;
        handles.put(region, slot.regionHandle);
        conductor.release(slot);
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
        final ClientSlot slot = conductor.acquire();
        conductor.commit(conductor.claim(FREE, FREE_LENGTH, slot, new FreeFlyweight()).regionHandle(handle));
        conductor.await(slot, "free of region '" + region.name() + "'");
        handles.remove(region);
        conductor.release(slot);
    }

    public void trust(final RemoteRegion region)
    {
        throw new RaasException("region of node " + region.nodeId() + " at 0x" + Long.toHexString(region.address()) +
            ": a handle attached to the standalone driver reaches only regions the driver allocated or looked up");
    }

    public MemorySegment localMemory(final RemoteRegion region)
    {
        throw new RaasException("region '" + region.name() + "' lives in the standalone driver's process; " +
            "reach it through a connection to node " + region.nodeId());
    }

    public MemorySegment allocateBuffer(final int size)
    {
        return area.allocateBuffer(size);
    }

    public int poll()
    {
        return conductor.poll();
    }

    public boolean pollsItself()
    {
        // responses are read by whoever waits for one or polls: the driver's process cannot call into this one
        return false;
    }

    /** A connection the driver opened for this client. */
    AttachedConnection connection(
        final int vqpn, final long nodeId, final boolean messaging, final CompletionHandler handler)
    {
        return new AttachedConnection(this, conductor, area, vqpn, nodeId, messaging, handler);
    }

    /**
     * @return asynchronous requests a connection may have outstanding: this client's own bound, which it keeps before
     * a request reaches the driver (the driver's connection for it keeps the driver's context's, waiting on the
     * driver's conductor, which delivers completions meanwhile).
     */
    public int connectionCredits()
    {
        return context.connectionCredits();
    }

    /** @return the most a message received without a copy may hold. */
    int advertisedBytes()
    {
        return context.advertisedBytes();
    }

    void closeConnection(final int vqpn)
    {
        final ClientSlot slot = conductor.acquire();
        final TargetFlyweight command = conductor.claim(CLOSE_CONNECTION, TARGET_LENGTH, slot, new TargetFlyweight());
        conductor.commit(command.targetId(vqpn));
        conductor.await(slot, String.format("close of vQPN 0x%x", vqpn));
        conductor.release(slot);
    }

    void closeListener(final int service)
    {
        final ClientSlot slot = conductor.acquire();
        final TargetFlyweight command = conductor.claim(CLOSE_LISTENER, TARGET_LENGTH, slot, new TargetFlyweight());
        conductor.commit(command.targetId(service));
        conductor.await(slot, "close of the listener on service " + service);
        conductor.release(slot);
    }

    public void close()
    {
        if (conductor.isClosed())
        {
            return;
        }
        ClientSlot slot = null;
        try
        {
            slot = conductor.acquire();
            conductor.commit(conductor.claim(REMOVE_CLIENT, BODY_OFFSET, slot, new CorrelatedFlyweight()));
        }
        catch (final RaasException driverGone)
        {
            // nothing to tell a dead driver
        }
        finally
        {
            // no answer is awaited: the slot is given back so that closing finds every slot free
            if (slot != null)
            {
                conductor.release(slot);
            }
        }
        closeQuietly();
    }

    private void closeQuietly()
    {
        conductor.markClosed();
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
        // threads still inside a call see the attachment closed and leave; the files are unmapped only once none
        // reads them, else they stay mapped: a read of unmapped memory would end the process, not throw
        if (conductor.quiesce(QUIESCE_NANOS))
        {
            arena.close();
        }
    }
}

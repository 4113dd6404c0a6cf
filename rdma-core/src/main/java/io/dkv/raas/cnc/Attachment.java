package io.dkv.raas.cnc;

import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasContext;
import io.dkv.raas.RaasException;
import io.dkv.raas.RemoteRegion;
import io.dkv.raas.ServiceClass;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

import static io.dkv.raas.cnc.CommandDescriptor.*;

/**
 * One attachment of a client to one run of a standalone driver: the driver's command-and-control file mapped, this
 * client's file (its response ring and data area) registered with that driver, the conductor talking to it, and the
 * handles of the regions obtained through it. What the driver hands out (connections, listeners, region handles) is
 * valid for this attachment alone: a driver that restarts under the name knows none of it, so {@link AttachedRaas}
 * makes a new attachment and this one only fails what still uses it.
 */
final class Attachment
{
    /** How long closing waits for threads still inside calls to leave before it unmaps the files. */
    private static final long QUIESCE_NANOS = 2_000_000_000L;

    private final String driverName;
    private final int number;
    private final long clientId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    private final long driverPid;
    private final Arena arena = Arena.ofShared();
    private final Path clientFile;
    private final ClientHeaderFlyweight clientHeader;
    private final EpochClock heartbeatClock;
    private final ClientConductor conductor;
    private final ClientDataArea area;
    private final NodeRecord self;
    /** The driver's handle of each region this attachment obtained, which its requests name the region by. */
    private final ConcurrentHashMap<RemoteRegion, Integer> handles = new ConcurrentHashMap<>();

    /**
     * Attach to the driver running under the context's name now.
     *
     * @param number which attachment of its handle this is (1 for the first), named by errors.
     * @throws RaasException when no live driver runs under the name, or it does not answer.
     */
    Attachment(final RaasContext context, final EpochClock heartbeatClock, final int number)
    {
        this.driverName = context.driverName();
        this.number = number;
        this.heartbeatClock = heartbeatClock;
        final Path directory = CncDescriptor.driverDirectory(context.cncDirectory(), driverName);
        final Path cncFile = directory.resolve(CncDescriptor.CNC_FILE);
        if (!Files.exists(cncFile))
        {
            arena.close();
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
            ClientConductor.requireDriver(cnc, driverName, context.driverTimeoutMs(), heartbeatClock);
        }
        catch (final IOException ex)
        {
            arena.close();
            throw new RaasException("cannot map " + cncFile + ": " + ex, ex);
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
        driverPid = cnc.driverPid();

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

        final ClientSlot slot = conductor.acquire();
        final ServiceClass serviceClass = context.clientClass();
        try
        {
            conductor.commit(conductor.claim(ADD_CLIENT, CommandDescriptor.ATTACH_LENGTH, slot, new AttachFlyweight())
                .serviceClass(serviceClass == null ? 0 : serviceClass.code())
                .weight(context.clientWeight())
                .nodeId(context.attachAs())
                .role(context.role()));
            conductor.await(slot, "attach to driver '" + driverName + "' (pid " + driverPid + ")");
        }
        catch (final RuntimeException ex)
        {
            unmap();
            throw ex;
        }
        final NodeRecord driverNode = slot.ready;
        conductor.release(slot);
        // a node of its own is reached at its driver's address, by the driver's DC target and key
        self = context.attachAs() == 0 ? driverNode : new NodeRecord(context.attachAs(), context.role(),
            driverNode.address(), driverNode.dctNumber(), driverNode.dcKey(), driverNode.epoch(), 0);
    }

    private static ManyToOneRingBuffer ring(final MemorySegment mapping, final int offset, final int length)
    {
        return new ManyToOneRingBuffer(
            new UnsafeBuffer(mapping.address() + offset, length + RingBufferDescriptor.TRAILER_LENGTH));
    }

    ClientConductor conductor()
    {
        return conductor;
    }

    ClientDataArea area()
    {
        return area;
    }

    /** @return which attachment of its handle this is, 1 for the first. */
    int number()
    {
        return number;
    }

    NodeRecord self()
    {
        return self;
    }

    String driverName()
    {
        return driverName;
    }

    long driverPid()
    {
        return driverPid;
    }

    /** @return this attachment as errors name it. */
    String describe()
    {
        return String.format("attachment %d (client %016x)", number, clientId);
    }

    /** Tell the driver this client lives. */
    void beat()
    {
        clientHeader.heartbeat(heartbeatClock.time());
    }

    /** @return why the driver of this attachment is gone (it shut down, stopped heartbeating, removed this client). */
    String lost()
    {
        return conductor.lost();
    }

    /** The driver is gone: what still uses this attachment fails, naming it and why. */
    void abandon(final String why)
    {
        conductor.fail("standalone driver '" + driverName + "' (pid " + driverPid + ") of " + describe() +
            " is gone (" + why + "); the handle attaches to the next driver under the name by itself: open " +
            "connections and look regions up again");
    }

    /** @return the driver's handle for a region this attachment obtained, or -1. */
    int handle(final RemoteRegion region)
    {
        final Integer handle = handles.get(region);
        return handle == null ? -1 : handle;
    }

    RemoteRegion remember(final ClientSlot slot)
    {
        final RemoteRegion region = slot.region;
        handles.put(region, slot.regionHandle);
        conductor.release(slot);
        return region;
    }

    void forget(final RemoteRegion region)
    {
        handles.remove(region);
    }

    void closeConnection(final int vqpn)
    {
        if (conductor.gone() != null)
        {
            return;
        }
        final ClientSlot slot = conductor.acquire();
        final TargetFlyweight command = conductor.claim(CLOSE_CONNECTION, TARGET_LENGTH, slot, new TargetFlyweight());
        conductor.commit(command.targetId(vqpn));
        conductor.await(slot, String.format("close of vQPN 0x%x", vqpn));
        conductor.release(slot);
    }

    void closeListener(final int service)
    {
        if (conductor.gone() != null)
        {
            return;
        }
        final ClientSlot slot = conductor.acquire();
        final TargetFlyweight command = conductor.claim(CLOSE_LISTENER, TARGET_LENGTH, slot, new TargetFlyweight());
        conductor.commit(command.targetId(service));
        conductor.await(slot, "close of the listener on service " + service);
        conductor.release(slot);
    }

    /** Tell a live driver this client goes, then unmap the files. */
    void close()
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
        unmap();
    }

    /**
     * Unmap the files once no thread reads them. An abandoned attachment's stay mapped until the handle closes: the
     * application may still hold buffers of its data area ({@link AttachedRaas#allocateBuffer}), which later
     * requests copy rather than use in place.
     */
    void unmap()
    {
        conductor.markClosed();
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

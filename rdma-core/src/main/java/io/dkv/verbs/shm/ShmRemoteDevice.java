package io.dkv.verbs.shm;

import io.dkv.verbs.VerbsException;
import org.agrona.BitUtil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A shm device as its peers see it: its control file and the files of its regions and queues,
 * mapped on first use and cached. Mappings use automatic arenas: a peer cannot revoke another
 * process's mapping, so access control rests on the control file, checked on every request, and
 * a stale mapping is released once nothing refers to it.
 */
final class ShmRemoteDevice
{
    /**
     * Mapping tables start this small and grow on demand: sized to the peer's capacities (thousands
     * of entries) they cost tens of KiB per peer met and, in a fresh heap, a page fault per 4 KiB on
     * the first request to it.
     */
    static final int INITIAL_MAPPINGS = 16;

    private final long deviceId;
    private final Path directory;
    private final ShmControlFile control;
    /** Mapped regions by MR table index, grown as higher indexes are met (a peer registers few of what it may). */
    private volatile RegionMapping[] regions = new RegionMapping[INITIAL_MAPPINGS];
    /** Mapped queues by endpoint number modulo the endpoint capacity, grown as regions are. */
    private volatile QueueMapping[] queues = new QueueMapping[INITIAL_MAPPINGS];
    private final int mrCapacity;
    private final int endpointCapacity;
    private final long pid;
    private volatile boolean alive = true;

    private record RegionMapping(long fileSeq, MemorySegment segment)
    {
    }

    private record QueueMapping(long fileSeq, ShmQueueFile file)
    {
    }

    private ShmRemoteDevice(final long deviceId, final Path directory, final ShmControlFile control)
    {
        this.deviceId = deviceId;
        this.directory = directory;
        this.control = control;
        this.mrCapacity = control.mrCapacity();
        this.endpointCapacity = control.endpointCapacity();
        this.pid = control.pid();
    }

    /**
     * @throws VerbsException when no device with that id lives under {@code root}.
     */
    static ShmRemoteDevice attach(final Path root, final long deviceId)
    {
        final Path directory = ShmDevice.deviceDirectory(root, deviceId);
        final Path controlPath = directory.resolve(ShmDevice.CONTROL_FILE);
        final MemorySegment segment = ShmFiles.map(controlPath, Arena.ofAuto());
        if (segment == null)
        {
            throw new VerbsException(String.format("no shm device %016x on this host (looked for %s)", deviceId,
                controlPath));
        }
        final ShmControlFile control = ShmControlFile.attach(segment, controlPath.toString());
        if (control.deviceId() != deviceId)
        {
            throw new VerbsException(String.format("%s belongs to device %016x, not %016x", controlPath,
                control.deviceId(), deviceId));
        }
        return new ShmRemoteDevice(deviceId, directory, control);
    }

    long deviceId()
    {
        return deviceId;
    }

    /** @return the process that owns the device. */
    long pid()
    {
        return pid;
    }

    ShmControlFile control()
    {
        return control;
    }

    boolean isClosed()
    {
        return control.isClosed();
    }

    /**
     * Whether requests can reach the device: it has not closed and its process lived when the
     * {@link ShmPeerWatchdog} last looked.
     */
    boolean isReachable()
    {
        return alive && !control.isClosed();
    }

    /** Look at the owning process now. */
    boolean checkReachableNow()
    {
        alive = !control.isClosed() && io.dkv.verbs.soft.ProcessLiveness.isAlive(pid);
        return alive;
    }

    /**
     * @param index   MR table index.
     * @param fileSeq the entry's backing file, as just read from the table.
     * @return the mapped region, or null when its file is gone (deregistered meanwhile).
     */
    MemorySegment region(final int index, final long fileSeq)
    {
        final RegionMapping[] regions = this.regions;
        final RegionMapping mapping = index < regions.length ? regions[index] : null;
        if (mapping != null && mapping.fileSeq == fileSeq)
        {
            return mapping.segment;
        }
        return mapRegion(index, fileSeq);
    }

    private synchronized MemorySegment mapRegion(final int index, final long fileSeq)
    {
        if (index >= regions.length)
        {
            regions = Arrays.copyOf(regions, grownLength(index, mrCapacity));
        }
        final RegionMapping mapping = regions[index];
        if (mapping != null && mapping.fileSeq == fileSeq)
        {
            return mapping.segment;
        }
        if (fileSeq == 0)
        {
            return null;
        }
        final MemorySegment segment =
            ShmFiles.map(directory.resolve(ShmDevice.regionFileName(fileSeq)), Arena.ofAuto());
        if (segment != null)
        {
            regions[index] = new RegionMapping(fileSeq, segment);
        }
        return segment;
    }

    /**
     * @param number  QP or DCT number.
     * @param scratch receives the endpoint's table entry.
     * @return the endpoint's queue file, or null when no live endpoint has that number.
     */
    ShmQueueFile queue(final int number, final ShmEndpointEntry scratch)
    {
        if (!control.readEndpoint(number, scratch))
        {
            return null;
        }
        final int index = number & (endpointCapacity - 1);
        final QueueMapping[] queues = this.queues;
        final QueueMapping mapping = index < queues.length ? queues[index] : null;
        if (mapping != null && mapping.fileSeq == scratch.fileSeq)
        {
            return mapping.file;
        }
        return mapQueue(index, scratch.fileSeq);
    }

    private synchronized ShmQueueFile mapQueue(final int index, final long fileSeq)
    {
        if (index >= queues.length)
        {
            queues = Arrays.copyOf(queues, grownLength(index, endpointCapacity));
        }
        final QueueMapping mapping = queues[index];
        if (mapping != null && mapping.fileSeq == fileSeq)
        {
            return mapping.file;
        }
        final Path path = directory.resolve(ShmDevice.queueFileName(fileSeq));
        final MemorySegment segment = ShmFiles.map(path, Arena.ofAuto());
        if (segment == null)
        {
            return null;
        }
        final ShmQueueFile file = ShmQueueFile.attach(segment, path.toString());
        queues[index] = new QueueMapping(fileSeq, file);
        return file;
    }

    /** @return a power of two that holds {@code index}, at most {@code capacity} (itself a power of two). */
    private static int grownLength(final int index, final int capacity)
    {
        return Math.min(capacity, BitUtil.findNextPositivePowerOfTwo(index + 1));
    }

    public String toString()
    {
        return String.format("shm:%016x", deviceId);
    }
}

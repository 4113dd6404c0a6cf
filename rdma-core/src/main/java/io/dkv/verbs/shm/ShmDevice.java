package io.dkv.verbs.shm;

import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import io.dkv.verbs.soft.SoftDcTarget;
import io.dkv.verbs.soft.SoftDevice;
import io.dkv.verbs.soft.SoftMemoryRegion;
import io.dkv.verbs.soft.SoftProtectionDomain;
import io.dkv.verbs.soft.SoftQueuePair;
import org.agrona.BitUtil;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.SystemEpochClock;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A shm device: a directory {@code <shm dir>/dkv-shm/<device id>/} holding the control file, one
 * file per region peers may reach and one per queue. Peers on the host find it by its id.
 */
public final class ShmDevice extends SoftDevice
{
    static final String ROOT_NAME = "dkv-shm";
    static final String CONTROL_FILE = "control";
    static final int MAX_INLINE_DATA = 1024;
    private static final AtomicBoolean SWEEPING = new AtomicBoolean();

    private final Path root;
    private final long deviceId;
    private final Path directory;
    private final PortAddress address;
    private final Arena controlArena = Arena.ofShared();
    private final ShmControlFile control;
    /** The control file's identity (device and inode): a close removes its directory only while it is still this. */
    private Object controlFileKey;
    private final Long2ObjectHashMap<ShmRemoteDevice> remotes = new Long2ObjectHashMap<>();
    private final AtomicLong nextFileSeq = new AtomicLong(1);
    private final long[] regionFileSeq;

    ShmDevice(final VerbsContext context)
    {
        super(context, MAX_INLINE_DATA);
        NativeMapping.prepare();
        this.root = context.shmDirectory().resolve(ROOT_NAME);
        try
        {
            Files.createDirectories(root);
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot create shm root " + root + ": " + ex, ex);
        }
        // file times are stamped by the host in real time: a device's own clock (a test's, or a skewed one) would
        // judge every directory of the host dead or none
        sweepInBackground(root, SystemEpochClock.INSTANCE);
        final long fixedId = context.shmDeviceId();
        final long id;
        final Path dir;
        final int mrCapacity = BitUtil.findNextPositivePowerOfTwo(context.maxMr() + 1);
        final int endpointCapacity = BitUtil.findNextPositivePowerOfTwo(context.maxQp() + 1);
        if (fixedId != 0)
        {
            // judged, removed and made again under the lock: a sweep that judged the dead directory before this
            // start replaced it must not remove the new one afterwards
            try (ShmRootLock ignore = ShmRootLock.acquire(root))
            {
                id = fixedId;
                dir = claimFixed(root, fixedId);
                this.control = createControl(dir, id, mrCapacity, endpointCapacity);
            }
        }
        else
        {
            Path random;
            long randomId;
            do
            {
                randomId = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
                random = deviceDirectory(root, randomId);
            }
            while (!createDirectory(random));
            id = randomId;
            dir = random;
            this.control = createControl(dir, id, mrCapacity, endpointCapacity);
        }
        this.deviceId = id;
        this.directory = dir;
        this.address = PortAddress.shm(id);
        this.regionFileSeq = new long[mrCapacity];
    }

    private ShmControlFile createControl(
        final Path dir, final long id, final int mrCapacity, final int endpointCapacity)
    {
        final Path controlPath = dir.resolve(CONTROL_FILE);
        final MemorySegment segment = ShmFiles.create(
            controlPath, ShmControlDescriptor.fileLength(mrCapacity, endpointCapacity), controlArena);
        controlFileKey = fileKey(controlPath);
        return ShmControlFile.create(segment, id, ProcessHandle.current().pid(), mrCapacity, endpointCapacity);
    }

    /**
     * A fixed id (a MetaServer's, named in its endpoint) restarted right after its process was killed: the sweep may
     * not have reached the dead directory yet, so it is taken back here. Called under the root lock.
     */
    private static Path claimFixed(final Path root, final long id)
    {
        final Path dir = deviceDirectory(root, id);
        if (createDirectory(dir))
        {
            return dir;
        }
        if (isDeadQuietly(dir))
        {
            ShmFiles.deleteTree(dir);
            if (createDirectory(dir))
            {
                return dir;
            }
        }
        throw new VerbsException(String.format("shm device id %016x is in use by a live device (%s)", id, dir));
    }

    /**
     * @return false when the directory exists already.
     */
    private static boolean createDirectory(final Path dir)
    {
        try
        {
            Files.createDirectory(dir);
            return true;
        }
        catch (final java.nio.file.FileAlreadyExistsException taken)
        {
            return false;
        }
        catch (final IOException ex)
        {
            throw new VerbsException("cannot create shm device directory " + dir + ": " + ex, ex);
        }
    }

    private static Object fileKey(final Path path)
    {
        try
        {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    static Path deviceDirectory(final Path root, final long deviceId)
    {
        return root.resolve(String.format("%016x", deviceId));
    }

    static String regionFileName(final long fileSeq)
    {
        return String.format("mr-%016x", fileSeq);
    }

    static String queueFileName(final long fileSeq)
    {
        return String.format("q-%016x", fileSeq);
    }

    /**
     * Sweep on a daemon thread: judging each device maps its control file, and a start that did it first spent
     * about 60 ms on it (2 cores, a few devices) before it could serve. Nothing waits for the sweep; a directory it
     * has not reached yet only takes disk space a while longer. One sweep runs at a time in a process: devices
     * opened meanwhile (tests open hundreds) find the one under way.
     */
    private static void sweepInBackground(final Path root, final EpochClock clock)
    {
        if (SWEEPING.compareAndSet(false, true))
        {
            Thread.ofPlatform().daemon().name("dkv-shm-sweep").start(() ->
            {
                try
                {
                    sweepDeadDevices(root, clock);
                }
                finally
                {
                    SWEEPING.set(false);
                }
            });
        }
    }

    /**
     * Remove the directories of devices whose process is gone (killed before it could clean up).
     *
     * @param clock the host's real-time clock: a directory with no control file is judged by its file time on it.
     */
    static void sweepDeadDevices(final Path root, final EpochClock clock)
    {
        try (Stream<Path> dirs = Files.list(root))
        {
            dirs.forEach(dir ->
            {
                if (!Files.isDirectory(dir))
                {
                    return;
                }
                try (ShmRootLock ignore = ShmRootLock.acquire(root))
                {
                    if (isDead(dir, clock))
                    {
                        ShmFiles.deleteTree(dir);
                    }
                }
                catch (final IOException | RuntimeException ignore)
                {
                    // a directory we cannot judge is left alone
                }
            });
        }
        catch (final IOException ignore)
        {
            // nothing to sweep
        }
    }

    private static boolean isDeadQuietly(final Path dir)
    {
        try
        {
            return isDead(dir, SystemEpochClock.INSTANCE);
        }
        catch (final IOException | RuntimeException unjudged)
        {
            // a directory that cannot be judged is taken to be live: refused, never removed
            return false;
        }
    }

    /**
     * @return true when the device of this directory is gone: closed, or its process no longer runs; a directory
     * with no whole control file yet is gone once a minute old (by the host's clock) with none.
     */
    private static boolean isDead(final Path dir, final EpochClock clock) throws IOException
    {
        final Path controlPath = dir.resolve(CONTROL_FILE);
        final MemorySegment segment = Files.exists(controlPath) ? ShmFiles.map(controlPath, Arena.ofAuto()) : null;
        if (segment == null || segment.byteSize() < ShmControlDescriptor.HEADER_LENGTH)
        {
            return Files.getLastModifiedTime(dir).toMillis() < clock.time() - 60_000;
        }
        final ShmControlFile control = ShmControlFile.attach(segment, controlPath.toString());
        return control.isClosed() || ProcessHandle.of(control.pid()).isEmpty();
    }

    public String provider()
    {
        return PortAddress.SHM;
    }

    public PortAddress address()
    {
        return address;
    }

    public long deviceId()
    {
        return deviceId;
    }

    Path directory()
    {
        return directory;
    }

    ShmControlFile control()
    {
        return control;
    }

    long nextFileSeq()
    {
        return nextFileSeq.getAndIncrement();
    }

    int ringCapacity()
    {
        return context.shmRingCapacity();
    }

    /**
     * @param id a device id.
     * @return the device as peers see it, mapped on first call.
     * @throws VerbsException when no such device lives on this host.
     */
    ShmRemoteDevice remote(final long id)
    {
        synchronized (remotes)
        {
            ShmRemoteDevice remote = remotes.get(id);
            if (remote != null && id != deviceId && !remote.isReachable())
            {
                remote = reattach(remote);
            }
            if (remote == null)
            {
                remote = ShmRemoteDevice.attach(root, id);
                remotes.put(id, remote);
                if (id != deviceId)
                {
                    ShmPeerWatchdog.watch(remote, forgetting(remote));
                }
            }
            return remote;
        }
    }

    /**
     * @return what drops a peer that closed from the devices this one has mapped, so that its
     * mappings can go once no queue pair or address handle refers to it; a peer whose process died
     * without closing stays, as requests to it must find the same files until a new incarnation
     * takes its id.
     */
    private Runnable forgetting(final ShmRemoteDevice remote)
    {
        return () ->
        {
            if (remote.isClosed())
            {
                synchronized (remotes)
                {
                    remotes.remove(remote.deviceId(), remote);
                }
            }
        };
    }

    /**
     * A device that closed or died may have started again under the same id (a restarted node
     * keeps its device id): map the new incarnation in its place.
     *
     * @return the new incarnation, or the old device when none took its place (yet).
     */
    private ShmRemoteDevice reattach(final ShmRemoteDevice stale)
    {
        final ShmRemoteDevice fresh;
        try
        {
            fresh = ShmRemoteDevice.attach(root, stale.deviceId());
        }
        catch (final VerbsException none)
        {
            return stale;
        }
        if (fresh.isClosed() || (!stale.isClosed() && fresh.pid() == stale.pid()))
        {
            // the same files as before (a process that died without closing), or a device closing now
            return stale;
        }
        ShmPeerWatchdog.unwatch(stale);
        ShmPeerWatchdog.watch(fresh, forgetting(fresh));
        remotes.put(fresh.deviceId(), fresh);
        return fresh;
    }

    protected RegionMemory allocateMemory(final int key, final long size, final int access)
    {
        final long fileSeq = nextFileSeq();
        final Path path = directory.resolve(regionFileName(fileSeq));
        final Arena arena = Arena.ofShared();
        final MemorySegment mapped;
        try
        {
            mapped = ShmFiles.create(path, ShmFiles.pageAligned(size), arena);
            if (context.shmPopulate())
            {
                ShmFiles.populate(mapped);
            }
        }
        catch (final RuntimeException ex)
        {
            arena.close();
            throw ex;
        }
        regionFileSeq[key >>> 8] = fileSeq;
        return new RegionMemory(mapped.asSlice(0, size), () ->
        {
            arena.close();
            ShmFiles.delete(path);
        });
    }

    protected void checkRegister(final MemorySegment segment, final int access)
    {
        if (io.dkv.verbs.Access.isRemote(access))
        {
            throw new VerbsException("shm peers reach only memory from ProtectionDomain.allocate(); caller memory " +
                "may be registered for local access only, not " + io.dkv.verbs.Access.describe(access));
        }
    }

    protected void onRegistered(final SoftMemoryRegion region)
    {
        final int index = region.lkey() >>> 8;
        final long fileSeq = regionFileSeq[index];
        regionFileSeq[index] = 0;
        control.putRegion(index, region.lkey(), region.pd().id(), region.address(), region.length(), region.access(),
            fileSeq);
    }

    protected void onDeregistered(final SoftMemoryRegion region)
    {
        control.clearRegion(region.lkey() >>> 8);
    }

    protected SoftQueuePair newQueuePair(final SoftProtectionDomain pd, final int number,
        final QpInitAttributes attributes)
    {
        return new ShmQueuePair(this, pd, number, attributes);
    }

    protected SoftDcTarget newDcTarget(final SoftProtectionDomain pd, final int number,
        final DctInitAttributes attributes)
    {
        return new ShmDcTarget(this, pd, number, attributes);
    }

    protected void beforeClose()
    {
        control.markClosed();
    }

    protected void afterClose()
    {
        synchronized (remotes)
        {
            remotes.values().forEach(ShmPeerWatchdog::unwatch);
        }
        controlArena.close();
        // a device that took this fixed id back once the close was marked owns the directory now
        try (ShmRootLock ignore = ShmRootLock.acquire(root))
        {
            final Object key = fileKey(directory.resolve(CONTROL_FILE));
            if (key == null || controlFileKey == null || key.equals(controlFileKey))
            {
                ShmFiles.deleteTree(directory);
            }
        }
    }

    public String toString()
    {
        return "shm device " + address + " at " + directory;
    }
}

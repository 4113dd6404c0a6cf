package io.dkv.raas.driver;

import io.dkv.raas.Directory;
import io.dkv.raas.NodeRecord;
import io.dkv.raas.RaasException;
import io.dkv.raas.RaasStatus;
import io.dkv.raas.RemoteRegion;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The regions this driver's users may name in requests (those they allocated, looked up or were
 * handed and trusted), and the regions of this node's memory it allocated and published. A request
 * passes the checks here before it may reach a shared queue pair: a queue pair shared by every
 * connection cannot tell them apart, so the driver does.
 */
final class RegionTable
{
    private final Directory directory;
    private final ProtectionDomain pd;
    private final NodeRecord self;
    private final Map<RemoteRegion, Boolean> knownRegions = new ConcurrentHashMap<>();
    private final Map<String, MemoryRegion> localRegions = new ConcurrentHashMap<>();

    RegionTable(final Directory directory, final ProtectionDomain pd, final NodeRecord self)
    {
        this.directory = directory;
        this.pd = pd;
        this.self = self;
    }

    static void requireRemoteRights(final int access, final String name)
    {
        if (access == 0 || (access & ~Access.REMOTE_MASK) != 0)
        {
            throw new RaasException("region '" + name + "' asks for access " + Access.describe(access) +
                ": give the remote rights its users need (REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC), and only those");
        }
    }

    /** Allocate and publish a region of this node's memory, registered with only the remote rights given. */
    RemoteRegion allocateLocal(final long size, final String name, final int access)
    {
        return allocateLocal(self.id(), size, name, access, null);
    }

    /**
     * Allocate a region of this node's memory as a region of {@code nodeId}, this node or one an attached application
     * is (peers reach it at this driver's address under that id), fill it and only then publish it.
     *
     * @param contents what the region holds when its name is published; null for zeros.
     */
    RemoteRegion allocateLocal(
        final long nodeId, final long size, final String name, final int access, final MemorySegment contents)
    {
        requireFreeName(nodeId, name, access);
        // remote writes and atomics need local write too (ibv_reg_mr refuses them without it)
        final int local = (access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 ? Access.LOCAL_WRITE : 0;
        final MemoryRegion memory = pd.allocate(size, local | access);
        if (contents != null)
        {
            MemorySegment.copy(contents, 0, memory.segment(), 0, size);
        }
        return publish(memory, nodeId, name, access);
    }

    private void requireFreeName(final long nodeId, final String name, final int access)
    {
        if (!name.isEmpty() && localRegions.containsKey(name))
        {
            throw new RaasException("a region named '" + name + "' already exists");
        }
        final RemoteRegion published = name.isEmpty() ? null : directory.region(name);
        // a node that restarted with its id takes back the names its previous incarnation published
        if (published != null && (published.nodeId() != nodeId || published.nodeEpoch() == self.epoch()))
        {
            throw new RaasException(
                "a region named '" + name + "' already exists (on node " + published.nodeId() + ")");
        }
        requireRemoteRights(access, name);
    }

    private RemoteRegion publish(final MemoryRegion memory, final long nodeId, final String name, final int access)
    {
        final RemoteRegion region = RemoteRegion.of(memory, name, nodeId, self.epoch(), access, 1);
        localRegions.put(regionKey(region), memory);
        knownRegions.put(region, Boolean.TRUE);
        if (!name.isEmpty())
        {
            directory.publish(region);
        }
        return region;
    }

    private static String regionKey(final RemoteRegion region)
    {
        return region.name().isEmpty() ? "#" + region.rkey() : region.name();
    }

    /** @return the region the directory has under the name, which requests may now name. */
    RemoteRegion lookup(final String name)
    {
        final RemoteRegion region = directory.region(name);
        if (region == null)
        {
            throw new RaasException("no region named '" + name + "' in the directory");
        }
        knownRegions.put(region, Boolean.TRUE);
        return region;
    }

    void free(final RemoteRegion region)
    {
        final String key = regionKey(region);
        final MemoryRegion held = localRegions.get(key);
        if (held == null || held.rkey() != region.rkey())
        {
            throw new RaasException(region.nodeId() != self.id() ?
                "region '" + region.name() + "' belongs to node " + region.nodeId() + "; only its node frees it" :
                "region '" + region.name() + "' was not allocated by this driver");
        }
        final MemoryRegion memory = localRegions.remove(key);
        knownRegions.remove(region);
        if (!region.name().isEmpty())
        {
            directory.withdraw(region.name());
        }
        memory.deregister();
    }

    MemorySegment localMemory(final RemoteRegion region)
    {
        final MemoryRegion memory = localRegions.get(regionKey(region));
        if (memory == null || region.nodeId() != self.id())
        {
            throw new RaasException("region '" + region.name() + "' is not memory of this node");
        }
        return memory.segment();
    }

    /** Make a region obtained elsewhere (e.g. in an RPC reply) usable by this driver's connections. */
    void trust(final RemoteRegion region)
    {
        knownRegions.put(region, Boolean.TRUE);
    }

    /**
     * The checks a request passes before it may reach a shared queue pair.
     *
     * @param knownOwned the caller checked this very region object before (ownership only grows until
     *                   the region is freed, when its node refuses requests anyway).
     * @return {@link RaasStatus#SUCCESS} or why it is refused.
     */
    int check(
        final RemoteRegion region,
        final long offset,
        final int length,
        final int requiredAccess,
        final boolean atomic,
        final boolean knownOwned)
    {
        if (!knownOwned && !knownRegions.containsKey(region))
        {
            return RaasStatus.NOT_OWNED;
        }
        if (!region.contains(offset, length))
        {
            return RaasStatus.OUT_OF_BOUNDS;
        }
        if ((region.access() & requiredAccess) == 0)
        {
            return RaasStatus.NOT_PERMITTED;
        }
        if (atomic && ((region.address() + offset) & 7) != 0)
        {
            return RaasStatus.MISALIGNED;
        }
        return RaasStatus.SUCCESS;
    }
}

package io.dkv.raas.driver;

import io.dkv.raas.RaasException;
import io.dkv.verbs.Access;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.ProtectionDomain;
import org.agrona.collections.Long2ObjectHashMap;

import java.lang.foreign.MemorySegment;

/**
 * Caller memory registered for zero-copy transfers, cached by address: registering costs far
 * more than a lookup, and callers reuse their buffers. A cached registration is used only while
 * its memory is still alive and covers the whole range asked for.
 */
final class Registrations
{
    private final ProtectionDomain pd;
    private final Long2ObjectHashMap<MemoryRegion> byAddress = new Long2ObjectHashMap<>();
    private volatile MemoryRegion[] pinned = new MemoryRegion[0];

    Registrations(final ProtectionDomain pd)
    {
        this.pd = pd;
    }

    /** Register memory for good (a client's shared data area): requests into it use this registration. */
    MemoryRegion registerPinned(final MemorySegment segment)
    {
        final MemoryRegion region = pd.register(segment, Access.LOCAL_WRITE);
        pin(region);
        return region;
    }

    /** Memory registered for good is given back (its client went away). */
    void deregisterPinned(final MemoryRegion region)
    {
        unpin(region);
        region.deregister();
    }

    /**
     * Memory registered for good (buffers the driver handed out, clients' shared data areas): a
     * segment inside one of them uses that registration.
     */
    synchronized void pin(final MemoryRegion region)
    {
        final MemoryRegion[] current = pinned;
        final MemoryRegion[] updated = java.util.Arrays.copyOf(current, current.length + 1);
        updated[current.length] = region;
        pinned = updated;
    }

    synchronized void unpin(final MemoryRegion region)
    {
        pinned = java.util.Arrays.stream(pinned).filter(r -> r != region).toArray(MemoryRegion[]::new);
    }

    private MemoryRegion pinnedFor(final MemorySegment segment)
    {
        final long address = segment.address();
        for (final MemoryRegion region : pinned)
        {
            if (region.isRegistered() && address >= region.address() &&
                address - region.address() <= region.length() - segment.byteSize())
            {
                return region;
            }
        }
        return null;
    }

    MemoryRegion registered(final MemorySegment segment)
    {
        if (segment.isNative())
        {
            final MemoryRegion region = pinnedFor(segment);
            if (region != null)
            {
                return region;
            }
        }
        return registerCached(segment);
    }

    private synchronized MemoryRegion registerCached(final MemorySegment segment)
    {
        if (!segment.isNative())
        {
            throw new RaasException("only native memory can be registered; copy heap buffers of " + segment.byteSize() +
                " bytes into a buffer from allocateBuffer");
        }
        final long address = segment.address();
        final MemoryRegion cached = byAddress.get(address);
        if (cached != null && cached.isRegistered() && cached.segment().scope().isAlive() &&
            cached.length() >= segment.byteSize())
        {
            return cached;
        }
        if (cached != null)
        {
            byAddress.remove(address);
            cached.deregister();
        }
        final MemoryRegion region = pd.register(segment, Access.LOCAL_WRITE);
        byAddress.put(address, region);
        return region;
    }

    /**
     * A registration peers may READ from (the READ path of large messages), made once per region.
     */
    synchronized MemoryRegion readable(final MemoryRegion local)
    {
        final long key = -local.address();
        final MemoryRegion cached = byAddress.get(key);
        if (cached != null && cached.isRegistered() && cached.segment().scope().isAlive() &&
            cached.length() >= local.length())
        {
            return cached;
        }
        final MemoryRegion region = pd.register(local.segment(), Access.LOCAL_WRITE | Access.REMOTE_READ);
        byAddress.put(key, region);
        return region;
    }

    synchronized int size()
    {
        return byAddress.size();
    }
}

package io.dkv.verbs.soft;

import io.dkv.verbs.Access;
import io.dkv.verbs.CompletionQueue;
import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.Device;
import io.dkv.verbs.DeviceAttributes;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.VerbsContext;
import io.dkv.verbs.VerbsException;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A software RNIC: the tables a hardware device keeps (regions by key, responders by number) and
 * the life cycle of every verbs object. Providers add how memory is backed and how requests
 * travel.
 *
 * <p>Keys are {@code index << 8 | tag}; numbers of queue pairs and DC targets are
 * {@code generation << indexBits | index} in 24 bits. Both find their entry with one array read
 * and detect reuse by comparing the whole value.
 */
public abstract class SoftDevice implements Device
{
    protected final VerbsContext context;
    private final DeviceAttributes attributes;
    private final AtomicReferenceArray<SoftMemoryRegion> regions;
    private final int[] regionTags;
    private final AtomicReferenceArray<SoftEndpoint> endpoints;
    private final int[] endpointGenerations;
    private final int endpointIndexBits;
    private final List<SoftProtectionDomain> pds = new ArrayList<>();
    private final List<SoftCompletionQueue> cqs = new ArrayList<>();
    private final List<SoftSharedReceiveQueue> srqs = new ArrayList<>();
    /** Set before the queue pairs that count into it are made: each takes it into a final field of its own. */
    private AtomicCounter receiverNotReady;
    private AtomicCounter abandonedMessages;
    private int nextRegionIndex = 1;
    private int nextEndpointIndex = 1;
    private int nextPdId = 1;
    private int nextCqId = 1;
    private int nextSrqId = 1;
    private volatile boolean closed;

    protected SoftDevice(final VerbsContext context, final int maxInlineData)
    {
        this.context = context;
        final int maxMr = BitUtil.findNextPositivePowerOfTwo(context.maxMr() + 1);
        final int maxQp = BitUtil.findNextPositivePowerOfTwo(context.maxQp() + 1);
        this.endpointIndexBits = Integer.numberOfTrailingZeros(maxQp);
        if (endpointIndexBits > 20)
        {
            throw new VerbsException("maxQp " + context.maxQp() +
                " leaves too few bits of a 24-bit QP number for generations");
        }
        this.regions = new AtomicReferenceArray<>(maxMr);
        this.regionTags = new int[maxMr];
        this.endpoints = new AtomicReferenceArray<>(maxQp);
        this.endpointGenerations = new int[maxQp];
        this.attributes = new DeviceAttributes(
            context.maxQp(),
            16 * 1024,
            16,
            1 << 22,
            context.maxMr(),
            maxInlineData,
            context.mtu(),
            context.maxSendSize(),
            context.maxMessageSize());
    }

    public final DeviceAttributes attributes()
    {
        return attributes;
    }

    public final boolean supportsDc()
    {
        return context.dc();
    }

    public VerbsContext context()
    {
        return context;
    }

    public void receiverNotReadyCounter(final AtomicCounter counter)
    {
        this.receiverNotReady = counter;
    }

    /** @return where the device's queue pairs count receiver-not-ready retries; null when nobody counts them. */
    public AtomicCounter receiverNotReadyCounter()
    {
        return receiverNotReady;
    }

    public void abandonedMessagesCounter(final AtomicCounter counter)
    {
        this.abandonedMessages = counter;
    }

    /** @return where the device's receive queues count messages their senders abandoned; null when nobody does. */
    public AtomicCounter abandonedMessagesCounter()
    {
        return abandonedMessages;
    }

    public final synchronized ProtectionDomain allocPd()
    {
        requireOpen();
        final SoftProtectionDomain pd = new SoftProtectionDomain(this, nextPdId++);
        pds.add(pd);
        return pd;
    }

    public final synchronized CompletionQueue createCq(final int depth)
    {
        requireOpen();
        if (depth < 1 || depth > attributes.maxCqe())
        {
            throw new VerbsException("CQ depth " + depth + " outside 1.." + attributes.maxCqe());
        }
        final SoftCompletionQueue cq = new SoftCompletionQueue(this, nextCqId++, depth);
        cqs.add(cq);
        return cq;
    }

    /**
     * @param key an lkey.
     * @return the registered region it names, or null.
     */
    public final SoftMemoryRegion localRegion(final int key)
    {
        final int index = key >>> 8;
        if (index >= regions.length())
        {
            return null;
        }
        final SoftMemoryRegion region = regions.get(index);
        return region != null && region.lkey() == key && region.isRegistered() ? region : null;
    }

    /**
     * @param number a QP or DC target number.
     * @return the live endpoint with that number, or null.
     */
    public final SoftEndpoint endpoint(final int number)
    {
        final int index = number & ((1 << endpointIndexBits) - 1);
        final SoftEndpoint endpoint = endpoints.get(index);
        return endpoint != null && endpoint.number() == number ? endpoint : null;
    }

    final SoftMemoryRegion allocate(final SoftProtectionDomain pd, final long size, final int access)
    {
        checkAccess(access);
        if (size <= 0)
        {
            throw new VerbsException("cannot allocate a region of " + size + " bytes");
        }
        synchronized (this)
        {
            requireOpen();
            final int index = claimRegionIndex();
            final int key = nextKey(index);
            final RegionMemory memory = allocateMemory(key, size, access);
            return publish(pd, index, new SoftMemoryRegion(pd, memory.segment(), key, access, memory.release()));
        }
    }

    final SoftMemoryRegion register(final SoftProtectionDomain pd, final MemorySegment segment, final int access)
    {
        checkAccess(access);
        if (!segment.isNative())
        {
            throw new VerbsException("only native memory can be registered; got a heap segment of " +
                segment.byteSize() + " bytes");
        }
        if (segment.byteSize() == 0)
        {
            throw new VerbsException("cannot register an empty segment");
        }
        checkRegister(segment, access);
        synchronized (this)
        {
            requireOpen();
            final int index = claimRegionIndex();
            final int key = nextKey(index);
            return publish(pd, index, new SoftMemoryRegion(pd, segment, key, access, null));
        }
    }

    private static void checkAccess(final int access)
    {
        if ((access & ~Access.ALL) != 0)
        {
            throw new VerbsException(String.format("unknown access flags 0x%x", access));
        }
        if ((access & (Access.REMOTE_WRITE | Access.REMOTE_ATOMIC)) != 0 && (access & Access.LOCAL_WRITE) == 0)
        {
            throw new VerbsException("REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE, as ibv_reg_mr requires; got " +
                Access.describe(access));
        }
    }

    private int claimRegionIndex()
    {
        final int capacity = regions.length();
        for (int i = 0; i < capacity - 1; i++)
        {
            final int index = nextRegionIndex;
            nextRegionIndex = index + 1 == capacity ? 1 : index + 1;
            if (regions.get(index) == null)
            {
                return index;
            }
        }
        throw new VerbsException("device has " + (capacity - 1) + " regions registered; no room for another (maxMr)");
    }

    private int nextKey(final int index)
    {
        regionTags[index] = (regionTags[index] + 1) & 0xFF;
        return index << 8 | regionTags[index];
    }

    private SoftMemoryRegion publish(final SoftProtectionDomain pd, final int index, final SoftMemoryRegion region)
    {
        onRegistered(region);
        regions.set(index, region);
        return region;
    }

    final void deregister(final SoftMemoryRegion region)
    {
        synchronized (this)
        {
            final int index = region.lkey() >>> 8;
            if (regions.get(index) != region)
            {
                return;
            }
            region.markDeregistered();
            onDeregistered(region);
            regions.set(index, null);
        }
        region.releaseMemory();
    }

    final QueuePair createQp(final SoftProtectionDomain pd, final QpInitAttributes attributes)
    {
        if (attributes.type() == null)
        {
            throw new VerbsException("QP type is required");
        }
        requireOwned(attributes.sendCq(), "send CQ");
        if (attributes.type() != QpType.DCI)
        {
            requireOwned(attributes.recvCq(), "receive CQ");
        }
        if (attributes.srq() != null &&
            (!(attributes.srq() instanceof SoftSharedReceiveQueue srq) || srq.pd().softDevice() != this))
        {
            throw new VerbsException("SRQ belongs to another device");
        }
        checkLimit("maxSendWr", attributes.maxSendWr(), 1, attributes().maxQpWr());
        checkLimit("maxRecvWr", attributes.maxRecvWr(), 0, attributes().maxQpWr());
        checkLimit("maxSendSge", attributes.maxSendSge(), 1, attributes().maxSge());
        checkLimit("maxRecvSge", attributes.maxRecvSge(), 0, attributes().maxSge());
        checkLimit("maxInlineData", attributes.maxInlineData(), 0, attributes().maxInlineData());
        synchronized (this)
        {
            requireOpen();
            final int index = claimEndpointIndex();
            final SoftQueuePair qp = newQueuePair(pd, endpointNumber(index), attributes);
            endpoints.set(index, qp);
            return qp;
        }
    }

    final DcTarget createDct(final SoftProtectionDomain pd, final DctInitAttributes attributes)
    {
        requireOwned(attributes.cq(), "DCT CQ");
        if (!(attributes.srq() instanceof SoftSharedReceiveQueue srq) || srq.pd().softDevice() != this)
        {
            throw new VerbsException("a DC target needs an SRQ of this device");
        }
        if ((attributes.accessFlags() & ~Access.ALL) != 0)
        {
            throw new VerbsException(String.format("unknown access flags 0x%x", attributes.accessFlags()));
        }
        synchronized (this)
        {
            requireOpen();
            final int index = claimEndpointIndex();
            final SoftDcTarget dct = newDcTarget(pd, endpointNumber(index), attributes);
            endpoints.set(index, dct);
            return dct;
        }
    }

    final synchronized SharedReceiveQueue createSrq(final SoftProtectionDomain pd, final int maxWr, final int maxSge)
    {
        requireOpen();
        checkLimit("SRQ maxWr", maxWr, 1, attributes().maxQpWr());
        checkLimit("SRQ maxSge", maxSge, 1, attributes().maxSge());
        final SoftSharedReceiveQueue srq = new SoftSharedReceiveQueue(pd, nextSrqId++, maxWr, maxSge);
        srqs.add(srq);
        return srq;
    }

    private void requireOwned(final CompletionQueue cq, final String what)
    {
        if (!(cq instanceof SoftCompletionQueue softCq) || softCq.isClosed() || !cqs.contains(softCq))
        {
            throw new VerbsException(what + " is missing, closed or of another device");
        }
    }

    private static void checkLimit(final String name, final int value, final int min, final int max)
    {
        if (value < min || value > max)
        {
            throw new VerbsException(name + " " + value + " outside " + min + ".." + max);
        }
    }

    private int claimEndpointIndex()
    {
        final int capacity = endpoints.length();
        for (int i = 0; i < capacity - 1; i++)
        {
            final int index = nextEndpointIndex;
            nextEndpointIndex = index + 1 == capacity ? 1 : index + 1;
            if (endpoints.get(index) == null)
            {
                return index;
            }
        }
        throw new VerbsException("device has " + (capacity - 1) +
            " queue pairs and DC targets; no room for another (maxQp)");
    }

    private int endpointNumber(final int index)
    {
        final int generationBits = 24 - endpointIndexBits;
        int generation = (endpointGenerations[index] + 1) & ((1 << generationBits) - 1);
        if (generation == 0)
        {
            generation = 1;
        }
        endpointGenerations[index] = generation;
        return generation << endpointIndexBits | index;
    }

    /**
     * Visit every live queue pair and DC target (control path: allocates).
     */
    protected final void forEachEndpoint(final java.util.function.Consumer<SoftEndpoint> visitor)
    {
        for (int i = 0; i < endpoints.length(); i++)
        {
            final SoftEndpoint endpoint = endpoints.get(i);
            if (endpoint != null)
            {
                visitor.accept(endpoint);
            }
        }
    }

    final synchronized void onClosed(final SoftEndpoint endpoint)
    {
        final int index = endpoint.number() & ((1 << endpointIndexBits) - 1);
        endpoints.compareAndSet(index, endpoint, null);
    }

    final synchronized void onClosed(final SoftCompletionQueue cq)
    {
        cqs.remove(cq);
    }

    final synchronized void onClosed(final SoftProtectionDomain pd)
    {
        pds.remove(pd);
        final List<SoftEndpoint> owned = new ArrayList<>();
        for (int i = 0; i < endpoints.length(); i++)
        {
            final SoftEndpoint endpoint = endpoints.get(i);
            if (endpoint != null && endpoint.pd() == pd)
            {
                owned.add(endpoint);
            }
        }
        owned.forEach(SoftDevice::closeEndpoint);
        final List<SoftMemoryRegion> ownedRegions = new ArrayList<>();
        for (int i = 0; i < regions.length(); i++)
        {
            final SoftMemoryRegion region = regions.get(i);
            if (region != null && region.pd() == pd)
            {
                ownedRegions.add(region);
            }
        }
        ownedRegions.forEach(SoftMemoryRegion::deregister);
        srqs.removeIf(srq -> srq.pd() == pd);
    }

    private static void closeEndpoint(final SoftEndpoint endpoint)
    {
        if (endpoint instanceof SoftQueuePair qp)
        {
            qp.close();
        }
        else if (endpoint instanceof SoftDcTarget dct)
        {
            dct.close();
        }
    }

    public final boolean isClosed()
    {
        return closed;
    }

    protected final void requireOpen()
    {
        if (closed)
        {
            throw new VerbsException("device " + address() + " is closed");
        }
    }

    public final void close()
    {
        final List<SoftProtectionDomain> openPds;
        final List<SoftCompletionQueue> openCqs;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            closed = true;
            openPds = new ArrayList<>(pds);
            openCqs = new ArrayList<>(cqs);
        }
        beforeClose();
        openPds.forEach(SoftProtectionDomain::close);
        openCqs.forEach(CloseHelper::quietClose);
        afterClose();
    }

    /** Memory for a region, and how to release it. */
    public record RegionMemory(MemorySegment segment, Runnable release)
    {
    }

    /** Back a region the provider allocates. Called under the device monitor. */
    protected abstract RegionMemory allocateMemory(int key, long size, int access);

    /** Refuse a caller-owned segment the provider's peers could not reach. */
    protected abstract void checkRegister(MemorySegment segment, int access);

    protected abstract SoftQueuePair newQueuePair(SoftProtectionDomain pd, int number, QpInitAttributes attributes);

    protected abstract SoftDcTarget newDcTarget(SoftProtectionDomain pd, int number, DctInitAttributes attributes);

    /** A region became valid; publish it where peers look. Called under the device monitor. */
    protected void onRegistered(final SoftMemoryRegion region)
    {
    }

    /** A region was revoked; withdraw it where peers look. Called under the device monitor. */
    protected void onDeregistered(final SoftMemoryRegion region)
    {
    }

    /** Called once when closing starts, before objects are destroyed. */
    protected void beforeClose()
    {
    }

    /** Called once when every object is destroyed. */
    protected void afterClose()
    {
    }
}

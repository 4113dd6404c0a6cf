package io.dkv.verbs.ibv;

import io.dkv.verbs.Access;
import io.dkv.verbs.AddressHandle;
import io.dkv.verbs.DcTarget;
import io.dkv.verbs.DctInitAttributes;
import io.dkv.verbs.Device;
import io.dkv.verbs.MemoryRegion;
import io.dkv.verbs.PortAddress;
import io.dkv.verbs.ProtectionDomain;
import io.dkv.verbs.QpInitAttributes;
import io.dkv.verbs.QpType;
import io.dkv.verbs.QueuePair;
import io.dkv.verbs.SharedReceiveQueue;
import io.dkv.verbs.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.dkv.verbs.ibv.IbvLayout.AH_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.SRQ_INIT_ATTR;
import static io.dkv.verbs.ibv.IbvLayout.offset;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A protection domain of an RNIC ({@code ibv_alloc_pd}) and what is created in it; closing it destroys those first.
 */
final class IbvProtectionDomain implements ProtectionDomain
{
    /** Hops a RoCE v2 packet may take between routers: GRH hop limit. */
    static final int HOP_LIMIT = 64;

    private final IbvDevice device;
    private final IbvFunctions functions;
    private final MemorySegment pd;
    private final List<AutoCloseable> owned = new ArrayList<>();
    private boolean closed;

    IbvProtectionDomain(final IbvDevice device, final IbvFunctions functions, final MemorySegment pd)
    {
        this.device = device;
        this.functions = functions;
        this.pd = pd;
    }

    public MemoryRegion allocate(final long size, final int access)
    {
        if (size <= 0)
        {
            throw new VerbsException("region size " + size + " must be positive");
        }
        final boolean hugePages = device.verbs().ibvHugePages();
        final MemorySegment memory = AnonymousMemory.map(size, hugePages);
        try
        {
            return register(memory.asSlice(0, size), access, true, memory);
        }
        catch (final RuntimeException ex)
        {
            AnonymousMemory.unmap(memory);
            throw ex;
        }
    }

    public MemoryRegion register(final MemorySegment segment, final int access)
    {
        if (!segment.isNative())
        {
            throw new VerbsException("only native memory can be registered, not a heap segment of " +
                segment.byteSize() + " bytes");
        }
        return register(segment, access, false, segment);
    }

    private MemoryRegion register(
        final MemorySegment segment, final int access, final boolean mapped, final MemorySegment mapping)
    {
        requireOpen();
        if ((access & ~Access.ALL) != 0)
        {
            throw new VerbsException("unknown access flags " + Access.describe(access));
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment mr = (MemorySegment)functions.regMr.invokeExact(
                state, pd, segment, segment.byteSize(), access);
            if (mr.equals(MemorySegment.NULL))
            {
                final int errno = IbvFunctions.errno(state);
                throw new VerbsException(IbvFunctions.failure("ibv_reg_mr(" + segment.byteSize() + " bytes at 0x" +
                    Long.toHexString(segment.address()) + ", " + Access.describe(access) + ")", errno).getMessage() +
                    "; " + MemlockLimit.current().describe());
            }
            return own(new IbvMemoryRegion(this, functions, mr, mapped ? mapping.asSlice(0, segment.byteSize()) :
                segment, mapped, access));
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_reg_mr", ex);
        }
    }

    public QueuePair createQp(final QpInitAttributes attributes)
    {
        requireOpen();
        if (attributes.sendCq() == null || attributes.recvCq() == null && attributes.type() != QpType.DCI)
        {
            throw new VerbsException("a " + attributes.type() + " queue pair needs its completion queues");
        }
        return own(attributes.type() == QpType.DCI ? IbvDcInitiator.create(this, functions, attributes) :
            IbvQueuePair.create(this, functions, attributes));
    }

    public DcTarget createDct(final DctInitAttributes attributes)
    {
        requireOpen();
        return own(IbvDcTarget.create(this, functions, attributes));
    }

    public SharedReceiveQueue createSrq(final int maxWr, final int maxSge)
    {
        requireOpen();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment init = arena.allocate(SRQ_INIT_ATTR);
            init.set(JAVA_INT, offset(SRQ_INIT_ATTR, "attr", "max_wr"), maxWr);
            init.set(JAVA_INT, offset(SRQ_INIT_ATTR, "attr", "max_sge"), maxSge);
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment srq = IbvFunctions.checked(
                (MemorySegment)functions.createSrq.invokeExact(state, pd, init), state,
                "ibv_create_srq(max_wr " + maxWr + ", max_sge " + maxSge + ")");
            return own(new IbvSharedReceiveQueue(this, functions, srq, maxWr, maxSge));
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_create_srq", ex);
        }
    }

    public AddressHandle createAh(final PortAddress address)
    {
        requireOpen();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(AH_ATTR);
            addressVector(attr, address);
            final MemorySegment state = IbvFunctions.callState(arena);
            final MemorySegment ah = IbvFunctions.checked(
                (MemorySegment)functions.createAh.invokeExact(state, pd, attr), state,
                "ibv_create_ah(" + address + ")");
            return own(new IbvAddressHandle(this, functions, ah, address));
        }
        catch (final Throwable ex)
        {
            throw IbvFunctions.unexpected("ibv_create_ah", ex);
        }
    }

    public Device device()
    {
        return device;
    }

    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        device.disown(this);
        final List<AutoCloseable> children = new ArrayList<>(owned);
        for (int i = children.size() - 1; i >= 0; i--)
        {
            try
            {
                children.get(i).close();
            }
            catch (final Exception ex)
            {
                // the domain is going: what could not be destroyed is the device's to reclaim when it closes
            }
        }
        owned.clear();
        IbvFunctions.destroy(functions.deallocPd, pd, "ibv_dealloc_pd");
    }

    /**
     * Fill an {@code ibv_ah_attr} that reaches {@code address} from this device's port: always with a global route
     * (required on RoCE, harmless within an InfiniBand subnet), from this port's chosen GID.
     */
    void addressVector(final MemorySegment attr, final PortAddress address)
    {
        if (!PortAddress.VERBS.equals(address.provider()))
        {
            throw new VerbsException("the verbs provider cannot reach " + address + ": not an RNIC port's address");
        }
        MemorySegment.copy(MemorySegment.ofArray(address.verbsGid()), 0, attr,
            offset(AH_ATTR, "grh", "dgid"), 16);
        attr.set(JAVA_BYTE, offset(AH_ATTR, "grh", "sgid_index"), (byte)device.gidIndex());
        attr.set(JAVA_BYTE, offset(AH_ATTR, "grh", "hop_limit"), (byte)HOP_LIMIT);
        attr.set(JAVA_SHORT, offset(AH_ATTR, "dlid"), (short)address.verbsLid());
        attr.set(JAVA_BYTE, offset(AH_ATTR, "is_global"), (byte)1);
        attr.set(JAVA_BYTE, offset(AH_ATTR, "port_num"), (byte)device.port());
    }

    IbvDevice ibvDevice()
    {
        return device;
    }

    MemorySegment pd()
    {
        return pd;
    }

    synchronized <T extends AutoCloseable> T own(final T object)
    {
        owned.add(object);
        return object;
    }

    synchronized void disown(final AutoCloseable object)
    {
        owned.remove(object);
    }

    private void requireOpen()
    {
        device.requireOpen();
        if (closed)
        {
            throw new VerbsException("protection domain of " + device.name() + " is closed");
        }
    }
}
